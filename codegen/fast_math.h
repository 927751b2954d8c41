#pragma once
// Fast math: a stage scheduled with precision math "fast" computes its f32 exp, log and
// division with the GPU's approximate intrinsics. Lowering rewrites those operations
// into calls of the names below; the CUDA emitter writes the intrinsic, the interpreter
// and the f64 reference evaluate the exact operation.
#include <string>

#include "dsl/expr.h"
#include "dsl/expr_substitute.h"

namespace cusched {

struct FastMathFunction {
  const char* name;       // the IR call: "fast_exp", "fast_log", "fast_div"
  const char* intrinsic;  // the CUDA function the emitter calls on f32 operands
  int arity;
};

// The fast-math call named `name`, or nullptr.
const FastMathFunction* fast_math_function(const std::string& name);

// `value` with every f32 exp and log call and every f32 division replaced by its
// fast-math call.
Expr with_fast_math(const Expr& value);

// True when `value` has an operation that with_fast_math replaces.
bool has_fast_math_operation(const Expr& value);

}  // namespace cusched
