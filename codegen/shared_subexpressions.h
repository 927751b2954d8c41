#pragma once
// The floating-point subexpressions that one stored value computes more than once: an
// inlined stage read several times by its consumer (mish(x) = x * tanh(softplus(x)) of
// a value itself computed by an inlined stage) repeats its whole expression at each
// read. The CUDA emitter computes each such subexpression once, into a named constant
// before the store, so that the compiled code evaluates each transcendental call once.
#include <vector>

#include "dsl/expr.h"

namespace cusched {

// One subexpression computed more than once: every node of the value that is
// structurally equal to it (same operations, types, names, literals and arguments).
struct SharedSubexpression {
  Expr value;                                // the first occurrence met in a left-to-right walk
  std::vector<const ExprNode*> occurrences;  // every occurrence, that one included
};

// The shared subexpressions of `value` worth a named constant: float-typed, occurring
// twice or more, calling a math function, dividing floats or of six nodes or more, and
// safe to evaluate before the store: one occurrence is evaluated whatever the conditions
// (not inside a select's branch or the right operand of && or ||), or the subexpression
// loads nothing and divides no integers. In dependency order: a subexpression comes after
// those it contains.
std::vector<SharedSubexpression> shared_subexpressions(const Expr& value);

}  // namespace cusched
