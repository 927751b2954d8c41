// The staged copies of the matmul tiles compile for sm_90a and use the instructions
// they are meant to: float4 accesses for synchronous copies, 16-byte cp.async.cg for
// the cp.async pipeline, and cp.async.bulk with mbarrier waits for the bulk pipeline.
// The PTX is checked (NVRTC for compute_90a) and the CUBIN built (sm_90a). No GPU is needed.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

nlohmann::json pipelined_tile(const std::string& engine) {
  nlohmann::json steps = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8);
  steps.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 3}, {"engine", engine}});
  return steps;
}

TEST(StagedCopyCompile, SynchronousTileCopiesWithFloat4) {
  KernelBundle b = bench_bundle("matmul", tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8));
  EXPECT_NE(b.source.find("*reinterpret_cast<const float4*>(&A["), std::string::npos) << b.source;
  EXPECT_NE(b.source.find("*reinterpret_cast<const float4*>(&B["), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_TRUE(ptx.find("ld.global.v4.f32") != std::string::npos ||
              ptx.find("ld.global.nc.v4.f32") != std::string::npos);
  EXPECT_NE(ptx.find("st.shared.v4.f32"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(StagedCopyCompile, CpAsyncPipelineCopies16BytesPerInstruction) {
  KernelBundle b = bench_bundle("matmul", pipelined_tile("cp.async"));
  EXPECT_NE(b.source.find("cusched::cp_async_16("), std::string::npos);
  EXPECT_EQ(b.source.find("cusched::cp_async_4("), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(ptx.find("], 16;"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(StagedCopyCompile, BulkPipelineUsesTheBulkCopyEngineAndMbarriers) {
  KernelBundle b = bench_bundle("matmul", pipelined_tile("bulk"));
  EXPECT_NE(b.source.find("cusched::bulk_copy_global_to_shared("), std::string::npos);
  EXPECT_NE(b.source.find("cusched::mbarrier_wait_parity("), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.try_wait.parity"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.arrive.expect_tx"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.init"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(StagedCopyCompile, SwizzledPipelinedTileCompilesWithTheXor) {
  nlohmann::json steps =
      tensor_core_tile_steps("C", "i", "j", "k", "A", 0, "B", 0, "", {128, 128, 64, 32, 32, "tf32", 3});
  for (auto& step : steps)
    if (step["op"] == "cache_read") step["swizzle"] = true;
  KernelBundle b = bench_bundle("matmul", steps);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("xor.b32"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

}  // namespace
}  // namespace cusched::runtime
