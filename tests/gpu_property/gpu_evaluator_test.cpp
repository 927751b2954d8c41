// On the GPU: the search's evaluator keeps one worker across batches. Batches of
// candidates evaluated one after another (as the search's slices are) all verify (none is
// reported crashed) and the batches after the first are served from the worker's trial
// cache, which a restarted worker would not have.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "problems/problem.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "search/multi_gpu_evaluator.h"
#include "tests/gpu_property/gpu_eval_config.h"

namespace cusched {
namespace {

TEST(GpuEvaluator, ConsecutiveBatchesShareOneWorkerAndItsTrialCache) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  const Problem& problem = find_problem("relu");
  search::EvalConfig cfg = gpu_eval_config("small", 11);
  search::MultiGpuEvaluator evaluator({0});
  for (int batch_index = 0; batch_index < 4; ++batch_index) {
    SCOPED_TRACE("batch " + std::to_string(batch_index));
    std::vector<search::CandidateOutcome> batch;
    for (int k = 0; k < 2; ++k) {
      batch.push_back(search::prepare_candidate(problem, nlohmann::json::array(), cfg));
      ASSERT_FALSE(batch.back().verdict) << batch.back().reason;
    }
    int done = 0;
    evaluator.evaluate(problem, cfg, batch, [&](size_t, search::CandidateOutcome& o) {
      ++done;
      EXPECT_EQ(o.verdict_text(), "ok") << o.reason;
      ASSERT_TRUE(o.gpu.has_value());
      if (batch_index > 0) {
        EXPECT_TRUE(o.gpu->trial_cache_hit) << "the worker lost its cache between batches";
      }
    });
    EXPECT_EQ(done, 2);
  }
}

}  // namespace
}  // namespace cusched
