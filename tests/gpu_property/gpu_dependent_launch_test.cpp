// On the GPU: kernels launched as programmatic dependents read what the kernels before
// them wrote only after griddepcontrol.wait. The cross-entropy schedule below (drawn by
// the random generator) runs three tiny kernels; when the loss kernel read M and S
// through `const __restrict__` pointers, ptxas hoisted the non-coherent load of S above
// the wait and the loss came out as -inf (log of the zeroed S) in every run.
#include <cstdlib>

#include <gtest/gtest.h>

#include "runtime/cuda_driver.h"
#include "tests/gpu_property/gpu_candidate.h"

namespace cusched {
namespace {

const char* kThreeTinyKernels = R"([
  {"op": "split", "stage": "Loss", "loop": "o", "factor": 1, "outer": "oo0", "inner": "oi1"},
  {"op": "bind", "stage": "Loss", "loop": "oo0", "axis": "blockIdx.x"},
  {"op": "bind", "stage": "Loss", "loop": "oi1", "axis": "threadIdx.x"},
  {"op": "compute_at", "stage": "Total", "consumer": "Loss", "loop": "oo0"},
  {"op": "split", "stage": "Total", "loop": "r", "factor": 1, "outer": "ro3", "inner": "rt4"},
  {"op": "cross_thread_reduce", "stage": "Total", "loop": "rt4", "axis": "threadIdx.x", "kind": "warp"},
  {"op": "compute_inline", "stage": "Nll"},
  {"op": "split", "stage": "S", "loop": "i", "factor": 2, "outer": "io5", "inner": "ii6"},
  {"op": "bind", "stage": "S", "loop": "io5", "axis": "blockIdx.x"},
  {"op": "bind", "stage": "S", "loop": "ii6", "axis": "threadIdx.x"},
  {"op": "split", "stage": "M", "loop": "i", "factor": 2, "outer": "io7", "inner": "ii8"},
  {"op": "bind", "stage": "M", "loop": "io7", "axis": "blockIdx.x"},
  {"op": "bind", "stage": "M", "loop": "ii8", "axis": "threadIdx.x"},
  {"op": "split", "stage": "M", "loop": "k", "factor": 4, "outer": "ko9", "inner": "kv10"},
  {"op": "vectorize", "stage": "M", "loop": "kv10"}
])";

TEST(GpuDependentLaunch, KernelsReadTheirPredecessorsOutputsAfterWaiting) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  const char* serial = std::getenv("CUSCHED_SERIAL_LAUNCHES");
  ASSERT_TRUE(serial == nullptr || std::string(serial) != "1") << "this test needs dependent launches";
  runtime::Worker worker(0);
  for (uint64_t seed : {1, 2, 3}) {
    auto out = testing::run_on_gpu("cross_entropy", nlohmann::json::parse(kThreeTinyKernels), "small", worker, seed);
    EXPECT_EQ(out.verdict_text(), "ok") << "seed " << seed << ": " << out.reason;
  }
}

}  // namespace
}  // namespace cusched
