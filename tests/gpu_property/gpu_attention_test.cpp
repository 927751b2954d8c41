// On the GPU: KernelBench level 1 #97 (scaled dot-product attention) as one fused kernel
// (tests/kernelbench/schedules/97_attention_fused.json: scores and row statistic computed
// at the output's query-tile loop, in shared memory) verifies at the small size and at a
// shape whose sequence is not a multiple of the tiles.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

search::CandidateOutcome run_fused(const SizeBindings& sizes, runtime::Worker& worker) {
  Problem p = load_problem_file(source_tree() + "/problems/kernelbench/level1/97_ScaledDotProductAttention.json");
  std::ifstream in(source_tree() + "/tests/kernelbench/schedules/97_attention_fused.json");
  p.sizes["gpu"] = sizes;
  return search::evaluate_candidate(p, nlohmann::json::parse(in), gpu_eval_config("gpu", 11), &worker);
}

TEST(GpuAttention, FusedPipelineVerifies) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  auto small = run_fused({{"BATCH", 1}, {"HEADS", 2}, {"S", 12}, {"E", 16}}, worker);
  EXPECT_EQ(small.verdict_text(), "ok") << small.reason;
  auto ragged = run_fused({{"BATCH", 2}, {"HEADS", 3}, {"S", 200}, {"E", 160}}, worker);
  EXPECT_EQ(ragged.verdict_text(), "ok") << ragged.reason;
}

}  // namespace
}  // namespace cusched
