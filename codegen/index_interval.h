#pragma once
// The integer ranges that index expressions take, from the ranges of their variables:
// which subexpressions of a long long index fit in int, so that the emitter computes
// them in 32-bit arithmetic and widens only where a value may pass 2^31 - 1.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "dsl/expr.h"

namespace cusched {

// The closed range [lo, hi] an integer expression takes.
struct IntInterval {
  int64_t lo = 0;
  int64_t hi = 0;
};

using VarIntervals = std::map<std::string, IntInterval>;

// The range of integer expression `e` when each variable in `vars` lies in its range:
// a bound that holds for every value (C's truncating division and remainder, as
// emitted); nullopt where some part is unbounded: a variable not in `vars`, a load, a
// division by a non-constant, a float, or a bound past 64 bits.
std::optional<IntInterval> int_interval(const Expr& e, const VarIntervals& vars);

// The nodes of `e` whose value and every subexpression's value lie within int32: each
// such subtree can be computed in int and widened at its root.
std::set<const ExprNode*> int32_subtrees(const Expr& e, const VarIntervals& vars);

}  // namespace cusched
