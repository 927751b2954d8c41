// evaluation_order (search/evaluation_order.h): each promising precision's and idea's
// cheapest candidate first, then the rest cheapest first, candidates without an estimate last.
#include "search/evaluation_order.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

namespace cusched::search {
namespace {

TEST(EvaluationOrder, EachPromisingIdeasCheapestVariantComesFirst) {
  // Idea 7's four variants are the cheapest estimates; ideas 8 and 9 come next, idea 10 is
  // estimated 10x behind the cheapest.
  const std::vector<double> estimates = {5.2, 5.3, 4.1, 5.2, 7.4, 8.0, 12.0, 41.0, 6.0};
  const std::vector<int64_t> ideas = {7, 7, 7, 7, 8, 8, 9, 10, 8};
  // Firsts: 2 (idea 7, 4.1), 8 (idea 8, 6.0), 6 (idea 9, 12.0, within 4 x 4.1); then the
  // rest cheapest first, ties in candidate order, idea 10 among them by its estimate.
  EXPECT_EQ(evaluation_order(estimates, ideas), (std::vector<size_t>{2, 8, 6, 0, 3, 1, 4, 5, 7}));
  // A window of 1: only the cheapest idea is promising, the order is by estimate alone.
  EXPECT_EQ(evaluation_order(estimates, ideas, 1.0), (std::vector<size_t>{2, 0, 3, 1, 8, 4, 5, 6, 7}));
}

TEST(EvaluationOrder, EachPrecisionsCheapestComesBeforeTheIdeas) {
  // Six sketches, each an idea of its own: four TF32 tiles estimated cheapest, a 3xTF32
  // tile at 2.5x the cheapest, an f32 tile at 3x, and an f32 one 20x behind.
  const std::vector<double> estimates = {1.1, 1.2, 1.3, 1.4, 2.75, 3.3, 22.0};
  const std::vector<int64_t> ideas = {1, 2, 3, 4, 5, 6, 7};
  const std::vector<Precision> precisions = {Precision::tf32,   Precision::tf32, Precision::tf32, Precision::tf32,
                                             Precision::x3tf32, Precision::f32,  Precision::f32};
  // The cheapest of each precision within the window: 0 (TF32), 4 (3xTF32), 5 (f32); then
  // the other ideas cheapest first; the f32 tile 20x behind waits.
  EXPECT_EQ(evaluation_order(estimates, ideas, 4.0, precisions), (std::vector<size_t>{0, 4, 5, 1, 2, 3, 6}));
  // Without the precisions a budget of three candidates takes TF32 tiles only.
  EXPECT_EQ(evaluation_order(estimates, ideas), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(EvaluationOrder, CandidatesWithoutAnEstimateGoLastInTheirOrder) {
  const double nan = std::nan("");
  const std::vector<double> estimates = {nan, 3.0, 0.0, 2.0, 9.0};
  const std::vector<int64_t> ideas = {1, 1, 2, 3, 3};
  EXPECT_EQ(evaluation_order(estimates, ideas), (std::vector<size_t>{3, 1, 4, 0, 2}));
  EXPECT_TRUE(evaluation_order({}, {}).empty());
  // None has an estimate: candidate order.
  EXPECT_EQ(evaluation_order({0.0, nan}, {1, 2}), (std::vector<size_t>{0, 1}));
}

TEST(EvaluationOrder, PreparationTakesOneCandidateOfEachIdeaInTurn) {
  // The baseline (an idea of its own, -1), three moves on it (idea 2), four variants of a
  // sketch (idea 3), two of another (idea 4).
  const std::vector<int64_t> ideas = {-1, 2, 2, 2, 3, 3, 3, 3, 4, 4};
  EXPECT_EQ(preparation_order(ideas), (std::vector<size_t>{0, 1, 4, 8, 2, 5, 9, 3, 6, 7}));
  // The first eight prepared hold every idea, where candidate order reached only ideas -1 to 3.
  const std::vector<size_t> order = preparation_order(ideas);
  const std::vector<size_t> first_eight(order.begin(), order.begin() + 8);
  EXPECT_NE(std::find(first_eight.begin(), first_eight.end(), size_t{8}), first_eight.end());
  EXPECT_TRUE(preparation_order({}).empty());
  EXPECT_EQ(preparation_order({5, 5, 5}), (std::vector<size_t>{0, 1, 2}));
}

TEST(EvaluationOrder, AReducedPrecisionThatGaveAWrongOutputGoesLast) {
  using P = Precision;
  const std::vector<P> precision = {P::tf32, P::tf32, P::x3tf32, P::tf32, P::f32, P::bf16, P::x3tf32};
  std::vector<size_t> order = {0, 1, 3, 2, 5, 4, 6};
  // Positions 0 and 1 evaluated; TF32 gave a wrong output: the TF32 candidate 3 goes last.
  defer_failed_precisions(order, 2, precision, {P::tf32});
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 5, 4, 6, 3}));
  // A wrong output in f32 or 3xTF32 says nothing about precision: nothing moves.
  std::vector<size_t> same = order;
  defer_failed_precisions(same, 2, precision, {P::f32, P::x3tf32});
  EXPECT_EQ(same, order);
  // BF16 failed as well: it goes last too, after TF32's, each keeping its place.
  defer_failed_precisions(order, 2, precision, {P::tf32, P::bf16});
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 4, 6, 5, 3}));
  defer_failed_precisions(order, 7, precision, {P::tf32});  // nothing left
  EXPECT_EQ(order.size(), 7u);
}

}  // namespace
}  // namespace cusched::search
