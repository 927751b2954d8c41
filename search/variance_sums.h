#pragma once
// Sums taken from variances in every sketch: where a problem defines a sum and the
// variance of the same values (a normalisation's statistics), the variance's kernel
// stores the sum too (sum_with_variance), so that one pass over the values gives both.
#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

// `sketch` with each sum stage that has a variance partner (dsl/sum_with_variance.h)
// stored by that variance's kernel: the sum's own steps dropped and the step appended,
// kept only where the result is legal at every size of the problem; its idea says which.
// The sketch as it is otherwise.
Sketch with_sums_from_variances(const Problem& problem, Sketch sketch);

}  // namespace cusched::search
