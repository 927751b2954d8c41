// A vectorized reduction loop compiles into 16-byte loads whose lanes update the
// accumulator in order: softmax rows over a cluster with float4 reductions read X with
// one vector load per thread in each of the max, sum and output passes. NVRTC for
// compute_90a; no GPU is needed.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(VectorizedReductionCompile, ReductionsReadFloat4AndAccumulateLanesInOrder) {
  KernelBundle b = bench_bundle("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 2, 1024, true));
  EXPECT_EQ(count(b.source, "lanes accumulated in order"), 2u) << b.source;
  EXPECT_GE(count(b.source, "const float4 X_vec"), 3u);
  const std::string ptx = ptx_of(b);
  EXPECT_GE(count(ptx, "ld.global.nc.v4.f32") + count(ptx, "ld.global.v4.f32"), 3u) << ptx.substr(0, 3000);
}

}  // namespace
}  // namespace cusched::runtime
