#pragma once
// Affine forms of integer index expressions (sum of coefficient * variable + constant)
// and the ranges they take when some variables sweep their loops.
#include <map>
#include <optional>
#include <string>

#include "dsl/expr.h"

namespace cusched {

struct Affine {
  std::map<std::string, int64_t> coeff;
  int64_t constant = 0;
  Expr to_expr() const;
};

// The affine form of `e`, or nullopt when it is not affine in its variables.
std::optional<Affine> affine_form(const Expr& e);

// The range of `e` when each variable in `sweep` takes 0 .. extent-1 and all other
// variables are fixed: min as an expression in the fixed variables, and the constant
// extent. nullopt when `e` is not affine.
struct IndexRange {
  Expr min;
  int64_t extent = 1;
  Affine min_form;
};
std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep);

}  // namespace cusched
