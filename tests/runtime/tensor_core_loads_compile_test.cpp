// Tensor-core tiles at the bench size compile for sm_90a with their operand fragments
// loaded by ldmatrix, and with cache_write scope shared their output tile written to
// global memory with 16-byte vector stores. The PTX (NVRTC for compute_90a) is checked
// and the CUBIN (sm_90a) built. No GPU is needed.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

nlohmann::json shared_output(nlohmann::json steps, const std::string& stage) {
  steps.push_back({{"op", "cache_write"}, {"stage", stage}, {"scope", "shared"}});
  return steps;
}

TEST(TensorCoreLoadsCompile, MatmulBestLoadsAWithLdmatrix) {
  KernelBundle b = bench_bundle("matmul", find_problem("matmul").best_schedule);
  EXPECT_NE(b.source.find("cusched::ldmatrix_x4("), std::string::npos) << b.source;
  const std::string p = ptx_of(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("mma.sync.aligned.m16n8k8"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, GemmWithTransposedWeightLoadsBothOperandsWithLdmatrix) {
  // weight is (OUT, IN): B's fragment rows run along k, so it loads with .x2 as well.
  KernelBundle b = bench_bundle("gemm_add_relu", find_problem("gemm_add_relu").best_schedule);
  const std::string p = ptx_of(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x2.shared.b16"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, SharedOutputTileStoresWithVectorStores) {
  for (const char* problem : {"matmul", "bmm"}) {
    SCOPED_TRACE(problem);
    KernelBundle b = bench_bundle(problem, shared_output(find_problem(problem).best_schedule, "C"));
    EXPECT_NE(b.source.find("C_tile"), std::string::npos) << b.source;
    const std::string p = ptx_of(b);
    EXPECT_NE(p.find("st.global.v4.f32"), std::string::npos) << "the tile goes out 16 bytes at a time";
    EXPECT_NE(p.find("st.shared.v2.f32"), std::string::npos) << "accumulator pairs go into the tile 8 bytes at a time";
    EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
    EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
  }
}

}  // namespace
}  // namespace cusched::runtime
