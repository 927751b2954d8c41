#pragma once
// The math functions of the language (exp, sigmoid, clamp, ...), declared once: their
// names, parameters, result types and exact float64 meaning. The C++ builders
// (expr.h), the expression text parser and printer, the float64 reference, the loop-IR
// interpreter, the CUDA emitter and docs/problem-files.md all follow this table.
#include <string>
#include <vector>

#include "dsl/expr.h"

namespace cusched {

// How a call's type follows from its arguments.
enum class MathResult {
  Float,     // the argument's float type; f32 for an integer or untyped argument (exp, sigmoid)
  Operand,   // the argument's own type (abs, floor, sign of an integer stay integers)
  Promoted,  // the common type of all arguments, as min and max promote (clamp)
};

struct MathFunction {
  const char* name;
  std::vector<const char*> params;  // parameter names, as the docs write them
  MathResult result;
  double (*exact)(const double* args);  // the value in float64, one double per parameter
  const char* meaning;                  // one line for the docs
  int instructions;  // about how many instructions the CUDA f32 function issues per call (the cost model's weight)
};

// The most parameters a math function has (clamp's three).
constexpr size_t kMaxMathParams = 3;

// Every math function, in the order the docs list them.
const std::vector<MathFunction>& math_functions();

// The math function named `name`, or nullptr.
const MathFunction* math_function(const std::string& name);

// A call of the math function `name` on `args`, typed by the function's result rule.
// Raises unknown-function, wrong-argument-count or type-error (a condition as argument).
Expr math_call(const std::string& name, std::vector<Expr> args);

// "sigmoid(x)", "clamp(x, lo, hi)".
std::string math_signature(const MathFunction& f);

}  // namespace cusched
