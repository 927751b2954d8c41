#pragma once
// Reductions inside larger expressions (`log(sum(k in K: exp(X(i, k))))`,
// `X(i, j) / sum(k in K: X(i, k))`): compute() makes each one a stage of its own and
// loads that stage where the reduction was.
//
// The naming rule: the n-th reduction of kind OP (sum, product, maximum, minimum, argmax,
// argmin) written inside stage S, counted from 0 in reading order, becomes the stage
// S_OPn (Y_sum0, Y_maximum0, Y_sum1). Its pure variables are the variables of S that the
// reduction uses, in S's order, then the enclosing reductions' variables it uses,
// outermost first; a reduction that uses none gets one variable S_OPn_o of extent 1.
// Identical reductions in one stage share one stage. A reduction nested in a split
// reduction is split from that stage in turn (Y_sum0_maximum0).
#include <string>
#include <vector>

#include "dsl/expr.h"
#include "dsl/var.h"

namespace cusched {

// `body` with every reduction below its top replaced by a load of a new stage (the
// stages are reachable through the loads, so a Pipeline finds them). Raises
// nested-reduction for a reduction that cannot be split (reduction_split_refusal).
Expr split_nested_reductions(const std::string& stage, const std::vector<Var>& vars, const Expr& body);

// Why a reduction inside `body` cannot become a stage of its own, or "" when every one
// can; `*site` is set to the refused reduction. A reduction in a branch of select, or
// on the right of && or ||, is evaluated only where the condition lets it, so that the
// condition may guard its reads; a stage of its own would compute it at every point.
std::string reduction_split_refusal(const Expr& body, const ExprNode** site = nullptr);

}  // namespace cusched
