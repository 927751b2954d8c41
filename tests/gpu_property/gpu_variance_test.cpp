// On the GPU: the one-pass variance (count, mean and squared deviations; Welford's update,
// Chan's combine in the device library's VarianceOp) in KernelBench level 1 #40 (LayerNorm)
// verifies on ordinary and adversarial inputs (mean 1000, spread 0.5) with its baseline and
// with the statistics computed at the output's row loop and combined across a block's warps
// and threads, or split over the blocks of a cluster (each thread's own triple pulled, or
// the block's one triple pushed), at a shape whose rows are not a multiple of the block.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

nlohmann::json row_fused() {
  return nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "c", "inner": "h", "fused": "ch"},
    {"op": "fuse", "stage": "Y", "outer": "ch", "inner": "w", "fused": "chw"},
    {"op": "split", "stage": "Y", "loop": "chw", "factor": 256, "outer": "o", "inner": "t"},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "t", "axis": "threadIdx.x"},
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "n"},
    {"op": "compute_at", "stage": "Q", "consumer": "Y", "loop": "n"},
    {"op": "fuse", "stage": "Q", "outer": "rc", "inner": "rh", "fused": "rch"},
    {"op": "fuse", "stage": "Q", "outer": "rch", "inner": "rw", "fused": "r"},
    {"op": "split", "stage": "Q", "loop": "r", "factor": 256, "outer": "ro", "inner": "ri"},
    {"op": "reorder", "stage": "Q", "loops": ["n", "ri", "ro"]},
    {"op": "cross_thread_reduce", "stage": "Q", "loop": "ri", "kind": "block"},
    {"op": "fuse", "stage": "S", "outer": "rc", "inner": "rh", "fused": "rch"},
    {"op": "fuse", "stage": "S", "outer": "rch", "inner": "rw", "fused": "r"},
    {"op": "split", "stage": "S", "loop": "r", "factor": 256, "outer": "ro", "inner": "ri"},
    {"op": "reorder", "stage": "S", "loops": ["n", "ri", "ro"]},
    {"op": "cross_thread_reduce", "stage": "S", "loop": "ri", "kind": "block"}
  ])");
}

// Q's reduction over a cluster of `blocks` blocks, each block's threads combining their part
// first where `block_first`.
nlohmann::json variance_over_cluster(int blocks, bool block_first) {
  nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Q", "loop": "n", "axis": "blockIdx.y"},
    {"op": "fuse", "stage": "Q", "outer": "rc", "inner": "rh", "fused": "rch"},
    {"op": "fuse", "stage": "Q", "outer": "rch", "inner": "rw", "fused": "r"}
  ])");
  steps.push_back(
      {{"op", "split"}, {"stage", "Q"}, {"loop", "r"}, {"parts", blocks}, {"outer", "rk"}, {"inner", "rr"}});
  if (block_first) {
    steps.push_back(
        {{"op", "split"}, {"stage", "Q"}, {"loop", "rr"}, {"factor", 64}, {"outer", "rs"}, {"inner", "rt"}});
    steps.push_back({{"op", "cross_thread_reduce"}, {"stage", "Q"}, {"loop", "rt"}, {"kind", "block"}});
  }
  steps.push_back({{"op", "cross_thread_reduce"}, {"stage", "Q"}, {"loop", "rk"}, {"kind", "cluster"}});
  return steps;
}

TEST(GpuVariance, LayerNormVerifiesWithTheBaselineAndABlockCombine) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  Problem p = load_problem_file(source_tree() + "/problems/kernelbench/level1/40_LayerNorm.json");
  p.sizes["gpu"] = {{"N", 3}, {"C", 5}, {"H", 37}, {"W", 29}};
  for (const auto& [name, steps] : {std::pair{"baseline", automatic_baseline(p.pipeline)},
                                    {"row fused", row_fused()},
                                    {"cluster of 4, per thread", variance_over_cluster(4, false)},
                                    {"cluster of 8 after the block", variance_over_cluster(8, true)}}) {
    SCOPED_TRACE(name);
    for (const char* size : {"small", "gpu"}) {
      auto out = search::evaluate_candidate(p, steps, gpu_eval_config(size, 5), &worker);
      EXPECT_EQ(out.verdict_text(), "ok") << size << ": " << out.reason;
    }
  }
}

}  // namespace
}  // namespace cusched
