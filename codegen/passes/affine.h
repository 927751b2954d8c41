#pragma once
// The ranges that affine index expressions take when some variables sweep their loops.
#include <map>
#include <optional>
#include <string>

#include "codegen/linear_form.h"

namespace cusched {

// The range of `e` when each variable in `sweep` takes 0 .. extent-1 and all other
// variables are fixed: min as an expression in the fixed variables, and the constant
// extent. Subterms that are not affine (divisions, moduli) are fixed values when no
// sweeping variable occurs in them; nullopt when `e` is not affine in the sweeping ones.
struct IndexRange {
  Expr min;
  int64_t extent = 1;
  LinearForm min_form;
};
std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep);

}  // namespace cusched
