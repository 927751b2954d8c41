// A reduction combined across a thread-block cluster compiles for sm_90a into the
// cluster instructions it stands for: the kernel declares its cluster shape, the
// blocks synchronise with barrier.cluster and read each other's shared memory through
// mapa (distributed shared memory). A stage that combined across the whole block first
// sends one value per block across the cluster; one whose threads hold different values
// sends one per thread. NVRTC for compute_90a; no GPU is needed.
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
  // One value per block, pushed into two phases of eight slots.
  EXPECT_NE(b.source.find("cusched::cluster_allreduce_uniform_push<cusched::MaxOp, 8>"), std::string::npos) << b.source;
  EXPECT_NE(b.source.find("cusched::cluster_allreduce_uniform_push<cusched::SumOp, 8>"), std::string::npos);
  EXPECT_NE(b.source.find("float cusched_reduce1[16];"), std::string::npos);
  EXPECT_EQ(b.source.find("cusched::cluster_allreduce<"), std::string::npos);
  // Any arrival still pending completes before the kernel ends.
  const size_t settle = b.source.rfind("cusched::cluster_settle(cusched_cluster_pending);");
  ASSERT_NE(settle, std::string::npos);
  EXPECT_GT(settle, b.source.rfind("cluster_allreduce_uniform_push<cusched::SumOp, 8>"));
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

TEST(ClusterCompile, ThreadsHoldingDifferentValuesCombineTheirOwnSlotsAcrossTheCluster) {
  // Each thread owns a column j; the blocks of a cluster hold a quarter of r each.
  KernelBundle b = bench_bundle("argmax_dim1", nlohmann::json::parse(R"([
    {"op": "split", "stage": "I", "loop": "j", "factor": 128, "outer": "jo", "inner": "ji"},
    {"op": "split", "stage": "I", "loop": "r", "parts": 4, "outer": "ro", "inner": "ri"},
    {"op": "reorder", "stage": "I", "loops": ["b", "jo", "ro", "ji", "ri"]},
    {"op": "bind", "stage": "I", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "I", "loop": "jo", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "I", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cross_thread_reduce", "stage": "I", "loop": "ro", "kind": "cluster"}])"));
  EXPECT_NE(b.source.find("cusched::cluster_allreduce_parts<cusched::ArgMaxOp>"), std::string::npos) << b.source;
  EXPECT_EQ(b.source.find("_uniform<"), std::string::npos);
  EXPECT_NE(b.source.find("cusched::cluster_settle(cusched_cluster_pending);"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

}  // namespace
}  // namespace cusched::runtime
