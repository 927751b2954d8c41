#pragma once
// The order in which a round's candidates go to the GPU evaluators.
#include <cstdint>
#include <set>
#include <vector>

#include "dsl/precision.h"

namespace cusched::search {

// Positions 0..n-1 of a round's candidates in the order they are evaluated, given each
// one's cost-model estimate (ms; 0 or NaN: none), its idea (`ideas[i]`, equal for the
// variants of one idea) and, where given, its precision. Of the candidates within
// `window` times the round's cheapest estimate: first the cheapest of each precision,
// then the cheapest of each idea, cheapest first; then every other candidate cheapest
// first; those without an estimate last. A time budget that ends after the first slice
// has then timed the likeliest kernel of each precision (the f32 and 3xTF32 ones a 1e-4
// tolerance admits beside TF32's) and the likeliest variant of each promising idea rather
// than several variants of one, so an estimate that is wrong across ideas (as for
// normalisations) costs less; candidates estimated far behind still wait.
std::vector<size_t> evaluation_order(const std::vector<double>& estimates, const std::vector<int64_t>& ideas,
                                     double window = 4.0, const std::vector<Precision>& precisions = {});

// Positions 0..n-1 of a round's candidates in the order they are prepared (validated,
// lowered, compiled) on the CPU: one of each idea in turn, ideas in the order of their
// first candidate, each idea's candidates in their order. A time budget that ends while
// the round is prepared (long compiles, as a convolution's) has then prepared a variant
// of every idea rather than every variant of the first few.
std::vector<size_t> preparation_order(const std::vector<int64_t>& ideas);

// Reorders the candidates not yet evaluated (`order` from position `from`) so that those
// of a precision below f32's exactness (TF32, BF16, F16) in which a candidate already
// failed with a wrong output come last, the order otherwise kept: where TF32's rounding
// fails the tolerance (a sum that cancels), its other variants would fail too, and the
// f32 or 3xTF32 ones get the budget first.
void defer_failed_precisions(std::vector<size_t>& order, size_t from, const std::vector<Precision>& precision_of,
                             const std::set<Precision>& failed);

}  // namespace cusched::search
