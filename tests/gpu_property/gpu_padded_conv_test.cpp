// On the GPU: KernelBench level 1 #57 (a transposed convolution of stride 1, written as a
// convolution over padded(X)) as an implicit GEMM on mma.sync tensor cores, the shifted
// input rows and the tap's weights staged in shared memory with their padding and
// pipelined with cp.async, verifies against the float64 reference at a shape whose
// output tiles the warps (64 x 128 per image) and at one with tails (the bench side 1024).
#include <gtest/gtest.h>

#include "problems/problem_file.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tests/gpu_property/gpu_eval_config.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

nlohmann::json implicit_gemm_steps() {
  return nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "ow", "factor": 64, "outer": "owo", "inner": "owi"},
    {"op": "split", "stage": "Y", "loop": "owi", "factor": 16, "outer": "oww", "inner": "own"},
    {"op": "split", "stage": "Y", "loop": "oc", "factor": 16, "outer": "o_w", "inner": "om"},
    {"op": "split", "stage": "Y", "loop": "rc", "factor": 8, "outer": "rco", "inner": "rci"},
    {"op": "reorder", "stage": "Y", "loops": ["n", "oh", "owo", "rco", "kh", "kw", "o_w", "oww", "om", "own", "rci"]},
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "oh", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "owo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "o_w", "axis": "threadIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "oww", "axis": "threadIdx.y"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "kw", "pad": 0},
    {"op": "cache_read", "stage": "Y", "source": "weight", "scope": "shared", "at": "kw", "pad": 0},
    {"op": "tensor_core", "stage": "Y", "shape": "m16n8k8", "precision": "tf32"},
    {"op": "pipeline", "stage": "Y", "loop": "kw", "depth": 2}
  ])");
}

search::CandidateOutcome run(const SizeBindings& sizes, runtime::Worker& worker) {
  Problem p = load_problem_file(source_tree() +
                                "/problems/kernelbench/level1/57_conv_transposed_2D__square_input__square_kernel.json");
  p.sizes["gpu"] = sizes;
  return search::evaluate_candidate(p, implicit_gemm_steps(), gpu_eval_config("gpu", 7), &worker);
}

TEST(GpuPaddedConv, ImplicitGemmOnTensorCoresVerifies) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  auto tiled = run({{"N", 2}, {"CI", 64}, {"CO", 64}, {"H", 62}, {"W", 126}}, worker);
  EXPECT_EQ(tiled.verdict_text(), "ok") << tiled.reason;
  auto tails = run({{"N", 1}, {"CI", 64}, {"CO", 64}, {"H", 64}, {"W", 1024}}, worker);
  EXPECT_EQ(tails.verdict_text(), "ok") << tails.reason;
}

}  // namespace
}  // namespace cusched
