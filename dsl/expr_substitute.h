#pragma once
// Rewriting expressions: replacing variables by expressions.
#include <functional>
#include <map>
#include <string>

#include "dsl/expr.h"

namespace cusched {

// Replaces every Var whose name is a key of `values` by the mapped expression.
Expr substitute(const Expr& e, const std::map<std::string, Expr>& values);
// Rebuilds `e` with `f` applied bottom-up to every node.
Expr rewrite(const Expr& e, const std::function<Expr(const Expr&)>& f);
// True when `e` mentions the variable `var`.
bool mentions_var(const Expr& e, const std::string& var);
// True when `e` loads from the tensor or stage `name`.
bool loads_from(const Expr& e, const std::string& name);
// The identity of a reduction (0 for sum, -inf for maximum, ...) in type t.
Expr reduction_identity(ReduceOp op, DType t);

}  // namespace cusched
