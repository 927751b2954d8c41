#pragma once
// What one operation of a lowered kernel counts as in the cost model's FLOP (an add or a
// multiply 1, an instruction slot 2).
#include "dsl/expr.h"

namespace cusched::search {

// A float operation: a math function or a division by the instructions CUDA's f32
// implementation issues.
double float_operation_weight(const ExprNode& e);

// An integer division or modulus by a constant that is not a power of 2: the
// multiply-high, shift and sign correction the compiler emits for it, and for a modulus
// the multiply and subtraction after.
double index_operation_weight(const ExprNode& e);

}  // namespace cusched::search
