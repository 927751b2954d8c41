#pragma once
// Fast math: a stage scheduled with precision math "fast" computes its f32 exp, log,
// division and the functions built on them (sigmoid, softplus, log1p, expm1, sin, cos)
// with the GPU's approximate intrinsics. Lowering rewrites those operations into calls
// of the names below; the CUDA emitter writes the intrinsic (or the device library's
// function built from intrinsics), the interpreter and the f64 reference evaluate the
// exact operation.
#include <string>
#include <vector>

#include "dsl/expr.h"
#include "dsl/expr_substitute.h"

namespace cusched {

struct FastMathFunction {
  const char* name;       // the IR call: "fast_exp", "fast_sigmoid", "fast_div"
  const char* intrinsic;  // the CUDA function the emitter calls on f32 operands
  const char* exact;      // the math function it approximates; "" for fast_div (division)
  int arity;
  int instructions;  // about how many instructions the intrinsic issues per call (the cost model's weight)
};

// Every fast-math call.
const std::vector<FastMathFunction>& fast_math_functions();

// The fast-math call named `name`, or nullptr.
const FastMathFunction* fast_math_function(const std::string& name);

// The exact operation a fast-math call stands for: the math function's call, or the
// division for fast_div.
Expr exact_form(const FastMathFunction& f, const std::vector<Expr>& args);

// `value` with every f32 call of a math function that has a fast form and every f32
// division replaced by its fast-math call.
Expr with_fast_math(const Expr& value);

// True when `value` has an operation that with_fast_math replaces.
bool has_fast_math_operation(const Expr& value);

}  // namespace cusched
