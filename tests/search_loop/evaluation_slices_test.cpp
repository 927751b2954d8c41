// The gpu backend's round evaluation in slices, with an evaluator that stands in for the
// GPU workers (each candidate takes a fixed time and gets a fixed median): the time
// budget stops the round between slices and leaves the rest pending, each slice's early
// cut follows the best median recorded before it, and the candidates go in evaluation_order.
#include <algorithm>
#include <chrono>
#include <limits>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "problems/problem.h"
#include "search/builtin_proposer.h"
#include "search/candidate_evaluation.h"
#include "search/evaluator.h"
#include "search/loop.h"
#include "search/store.h"
#include "tests/temp_store.h"

namespace cusched::search {
namespace {

// Verifies every candidate after `delay_ms`, its median 2 ms for the first candidate it
// sees and 1 ms for the others; remembers the early-cut setting of each call.
class TimedEvaluator : public Evaluator {
 public:
  explicit TimedEvaluator(int delay_ms) : delay_ms_(delay_ms) {}
  int alive() const override { return 1; }
  int total() const override { return 1; }
  std::vector<double> cuts, budgets, estimates;  // per call, per call, per candidate in evaluation order
  std::vector<size_t> sizes;

 protected:
  void run(const Problem&, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override {
    cuts.push_back(cfg.cut_ms);
    budgets.push_back(cfg.timing_budget_ms);
    sizes.push_back(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      estimates.push_back(batch[k].cost_estimate_ms);
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
      runtime::EvalResult r;
      r.verdict = runtime::Verdict::ok;
      r.median_ms = r.min_ms = r.max_ms = seen_++ == 0 ? 2.0 : 1.0;
      batch[k].gpu = r;
      batch[k].verdict = runtime::Verdict::ok;
      finished(k);
    }
  }

 private:
  int delay_ms_;
  int seen_ = 0;
};

// One round of the built-in proposer's candidates for relu on the gpu backend, evaluated
// by `evaluator`, in a fresh store named after `name`.
struct SlicedSearch {
  Store store;
  SearchSummary summary;
  SlicedSearch(const std::string& name, const std::shared_ptr<Evaluator>& evaluator, double budget_minutes,
               const std::string& problem = "relu", int64_t budget_candidates = 0)
      : store(cusched::test::fresh_store_path("evaluation_slices", name)) {
    const Problem& p = find_problem(problem);
    BuiltinProposer proposer(p);
    SearchOptions o;
    o.backend = "gpu";
    o.rounds = 1;
    o.ideas = 4;
    o.per_idea = 4;
    o.audit = false;
    o.cut_factor = 4;
    o.budget_minutes = budget_minutes;
    o.budget_candidates = budget_candidates;
    std::ostringstream log;
    summary = SearchLoop(p, store, proposer, o, log, evaluator).run();
  }
};

TEST(EvaluationSlices, TheTimeBudgetStopsTheRoundBetweenSlicesAndLeavesTheRestPending) {
  auto evaluator = std::make_shared<TimedEvaluator>(300);
  SlicedSearch s("budget", evaluator, 0.5 / 60);  // half a second: spent during the first slice
  ASSERT_EQ(evaluator->sizes.size(), 1u);
  EXPECT_EQ(evaluator->sizes[0], 4u) << "two candidates per evaluator, at least four";
  EXPECT_EQ(s.store.evaluations(s.summary.run).size(), 4u);
  EXPECT_GT(s.store.pending(s.summary.run).size(), 0u) << "the candidates not started stay pending";
}

TEST(EvaluationSlices, EachSlicesEarlyCutFollowsTheBestMedianSoFar) {
  auto evaluator = std::make_shared<TimedEvaluator>(0);
  SlicedSearch s("cut", evaluator, 0);
  ASSERT_GE(evaluator->cuts.size(), 2u);
  EXPECT_EQ(evaluator->cuts[0], 0.0) << "nothing is timed before the first slice";
  EXPECT_DOUBLE_EQ(evaluator->cuts[1], 4.0) << "the first slice's best median is 1 ms";
}

// The GPU sees a round's candidates in evaluation_order: the cheapest by the cost model
// first, then the other promising ideas' cheapest, then the rest cheapest first (two
// ascending runs), the baseline among them (on softmax the baseline is far from the
// cheapest), and each with the default timing budget of 2 s.
TEST(EvaluationSlices, TheGpuTakesEachIdeasCheapestFirstThenTheRestCheapestFirst) {
  auto evaluator = std::make_shared<TimedEvaluator>(0);
  SlicedSearch s("order", evaluator, 0, "softmax");
  const auto& e = evaluator->estimates;
  ASSERT_GE(e.size(), 6u);
  EXPECT_EQ(e.front(), *std::min_element(e.begin(), e.end()));
  int descents = 0;
  for (size_t i = 1; i < e.size(); ++i) descents += e[i] < e[i - 1];
  EXPECT_LE(descents, 1) << "two ascending runs";
  EXPECT_LT(e.front(), e.back());
  auto baseline = s.store.evaluation(s.store.candidates(s.summary.run).front().id);
  ASSERT_TRUE(baseline);
  EXPECT_NE(baseline->cost_estimate, evaluator->estimates.front()) << "the baseline is not evaluated first";
  for (double b : evaluator->budgets) EXPECT_DOUBLE_EQ(b, 2000.0);
}

// A candidate budget smaller than the round goes to the round's likeliest candidates, not
// to the first proposed: every candidate is lowered and estimated, and the GPU gets the
// cheapest of each promising idea first (evaluation_order), so on softmax the baseline and
// its moves (the round's first idea, far from the cheapest) stay pending.
TEST(EvaluationSlices, ACandidateBudgetGoesToTheCheapestEstimatesOfTheRound) {
  auto evaluator = std::make_shared<TimedEvaluator>(0);
  SlicedSearch s("budget-order", evaluator, 0, "softmax", 4);
  EXPECT_EQ(s.store.evaluations(s.summary.run).size(), 4u);
  ASSERT_EQ(evaluator->estimates.size(), 4u);
  const auto candidates = s.store.candidates(s.summary.run);
  ASSERT_GT(candidates.size(), 4u);
  EXPECT_FALSE(s.store.evaluation(candidates.front().id)) << "the baseline stays pending";
  // The first evaluated is the cheapest estimate of every candidate the round proposed.
  const Problem& p = find_problem("softmax");
  EvalConfig cfg;
  cfg.audit = false;
  cfg.size = p.sizes.count("bench") ? "bench" : p.default_size;
  double cheapest = std::numeric_limits<double>::infinity();
  for (const auto& c : candidates)
    if (auto o = prepare_candidate(p, c.schedule, cfg, nullptr, false); !o.verdict)
      cheapest = std::min(cheapest, o.cost_estimate_ms);
  EXPECT_DOUBLE_EQ(evaluator->estimates.front(), cheapest);
}

// Gives every TF32 candidate a wrong output and verifies the others; records each
// candidate's precision in evaluation order and the size of each slice.
class Tf32FailsEvaluator : public Evaluator {
 public:
  int alive() const override { return 1; }
  int total() const override { return 1; }
  std::vector<Precision> precisions;
  std::vector<size_t> sizes;

 protected:
  void run(const Problem&, const EvalConfig&, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override {
    sizes.push_back(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      precisions.push_back(batch[k].precision);
      runtime::EvalResult r;
      r.verdict = batch[k].precision == Precision::tf32 ? runtime::Verdict::wrong_output : runtime::Verdict::ok;
      r.median_ms = r.min_ms = r.max_ms = 1.0;
      batch[k].gpu = r;
      batch[k].verdict = r.verdict;
      finished(k);
    }
  }
};

// Once a TF32 candidate has a wrong output, the slices after it take every candidate of
// another precision before the remaining TF32 ones (matmul's round has TF32, 3xTF32 and
// f32 tiles).
TEST(EvaluationSlices, AfterAWrongTf32OutputTheOtherPrecisionsGoFirst) {
  auto evaluator = std::make_shared<Tf32FailsEvaluator>();
  SlicedSearch s("precision", evaluator, 0, "matmul");
  const auto& p = evaluator->precisions;
  size_t first_failure_slice_end = 0, seen = 0;
  for (size_t size : evaluator->sizes) {
    const bool failed =
        std::find(p.begin() + seen, p.begin() + seen + size, Precision::tf32) != p.begin() + seen + size;
    seen += size;
    if (failed) {
      first_failure_slice_end = seen;
      break;
    }
  }
  ASSERT_GT(first_failure_slice_end, 0u) << "a TF32 candidate in some slice";
  ASSERT_LT(first_failure_slice_end, p.size()) << "slices after it";
  const auto tail = std::vector<Precision>(p.begin() + first_failure_slice_end, p.end());
  const auto first_tf32 = std::find(tail.begin(), tail.end(), Precision::tf32);
  EXPECT_TRUE(std::all_of(first_tf32, tail.end(), [](Precision x) { return x == Precision::tf32; }))
      << "a candidate of another precision after a deferred TF32 one";
  EXPECT_TRUE(std::any_of(tail.begin(), first_tf32, [](Precision x) { return x != Precision::tf32; }));
}

}  // namespace
}  // namespace cusched::search
