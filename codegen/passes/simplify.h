#pragma once
// Constant folding and algebraic identities on index expressions, for readable IR.
#include "dsl/expr.h"

namespace cusched {

Expr simplify(const Expr& e);

}  // namespace cusched
