// A reduction combined across a thread-block cluster compiles for sm_90a into the
// cluster instructions it stands for: the kernel declares its cluster shape, the
// blocks synchronise with barrier.cluster and read each other's shared memory through
// mapa (distributed shared memory). NVRTC for compute_90a; no GPU is needed.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

TEST(ClusterCompile, SoftmaxRowsOverAClusterUseClusterBarriersAndDistributedSharedMemory) {
  KernelBundle b = bench_bundle("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 8, 1024));
  EXPECT_NE(b.source.find("__cluster_dims__(8, 1, 1)"), std::string::npos) << b.source;
  EXPECT_NE(b.source.find("cusched::cluster_allreduce<cusched::MaxOp>"), std::string::npos);
  EXPECT_NE(b.source.find("cusched::cluster_allreduce<cusched::SumOp>"), std::string::npos);
  ASSERT_EQ(b.launches.size(), 1u);
  EXPECT_EQ(b.launches[0].grid[0], 8);     // one cluster along x
  EXPECT_EQ(b.launches[0].grid[1], 4096);  // the rows
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find(".reqnctapercluster 8, 1, 1"), std::string::npos) << ptx.substr(0, 2000);
  EXPECT_NE(ptx.find("barrier.cluster.arrive.release"), std::string::npos);
  EXPECT_NE(ptx.find("barrier.cluster.wait.acquire"), std::string::npos);
  EXPECT_NE(ptx.find("mapa.u64"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

}  // namespace
}  // namespace cusched::runtime
