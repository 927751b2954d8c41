#pragma once
// Linear forms of integer index expressions: sum of coefficient * term + constant,
// where a term is a variable or, when asked for, an opaque integer subexpression
// (a division, a modulus, a load) keyed by its text. Lowering's bounds inference,
// simplification, the emitter's alignment proofs and the cost model all read
// indices through this one decomposition.
#include <map>
#include <optional>
#include <string>

#include "dsl/expr.h"

namespace cusched {

struct LinearForm {
  std::map<std::string, int64_t> coeff;  // variable name or opaque-term key -> coefficient
  int64_t constant = 0;
  std::map<std::string, Expr> atoms;  // opaque-term key -> the subexpression
  Expr to_expr() const;
};

// The linear form of `e`. With `opaque_terms` false, nullopt unless `e` is affine in
// its variables (integer casts are looked through); with it true, every integer
// subterm that is not a sum, difference, negation or product by a constant becomes
// an opaque term, so only float or boolean expressions give nullopt.
std::optional<LinearForm> linear_form(const Expr& e, bool opaque_terms = false);

}  // namespace cusched
