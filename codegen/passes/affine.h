#pragma once
// The ranges that affine index expressions take when some variables sweep their loops.
#include <map>
#include <optional>
#include <string>

#include "codegen/linear_form.h"

namespace cusched {

// The range of `e` when each variable in `sweep` takes 0 .. extent-1 and all other
// variables are fixed: min as an expression in the fixed variables, and the constant
// extent (a bound: every value lies in [min, min + extent)). Subterms that are not affine
// are fixed values when no sweeping variable occurs in them; a division or modulus by a
// positive constant of a sweeping expression (a loop fused from two, then split) is
// bounded through its dividend's range (a modulus only where its dividend is a sum or
// product of constants of at least 0 and variables, which are loop indices and so
// non-negative); nullopt for other non-affine sweeping terms.
struct IndexRange {
  Expr min;
  int64_t extent = 1;
  LinearForm min_form;
};
// With `bound_sweeping_terms` false, a division or modulus of a sweeping expression gives
// nullopt too: for callers that need the exact set of values, not a bound (a block's
// output tile, whose every element the block writes back).
std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep,
                                      bool bound_sweeping_terms = true);

}  // namespace cusched
