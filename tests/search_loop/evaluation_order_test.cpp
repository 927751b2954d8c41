// evaluation_order (search/evaluation_order.h): each promising idea's cheapest variant
// first, then the rest cheapest first, candidates without an estimate last.
#include "search/evaluation_order.h"

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

TEST(EvaluationOrder, CandidatesWithoutAnEstimateGoLastInTheirOrder) {
  const double nan = std::nan("");
  const std::vector<double> estimates = {nan, 3.0, 0.0, 2.0, 9.0};
  const std::vector<int64_t> ideas = {1, 1, 2, 3, 3};
  EXPECT_EQ(evaluation_order(estimates, ideas), (std::vector<size_t>{3, 1, 4, 0, 2}));
  EXPECT_TRUE(evaluation_order({}, {}).empty());
  // None has an estimate: candidate order.
  EXPECT_EQ(evaluation_order({0.0, nan}, {1, 2}), (std::vector<size_t>{0, 1}));
}

}  // namespace
}  // namespace cusched::search
