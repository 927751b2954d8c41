// Tensor-core tiles at the bench size compile for sm_90a with their operand fragments
// loaded by ldmatrix, and with cache_write scope shared their output tile written to
// global memory with 16-byte vector stores. The PTX (NVRTC for compute_90a) is checked
// and the CUBIN (sm_90a) built; so are the warpgroup tiles that the random schedule
// generator draws (other tile widths, one or two warpgroups, A staged or not, pipelines of
// every depth), which the property tests only run in the interpreter. No GPU is needed.
#include <random>

#include <gtest/gtest.h>

#include "dsl/random_schedule.h"
#include "problems/baseline_steps.h"
#include "tests/runtime/bench_kernel_compile.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

// The mma.sync tiles (m16n8k8) that the matmul and gemm problems used before warpgroup MMA.
nlohmann::json matmul_mma_tile(const std::string& batch = "") {
  return tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, batch, {128, 128, 64, 64, 16, "tf32", 4});
}

nlohmann::json shared_output(nlohmann::json steps, const std::string& stage) {
  steps.push_back({{"op", "cache_write"}, {"stage", stage}, {"scope", "shared"}});
  return steps;
}

TEST(TensorCoreLoadsCompile, MatmulTileLoadsAWithLdmatrix) {
  KernelBundle b = bench_bundle("matmul", matmul_mma_tile());
  EXPECT_NE(b.source.find("cusched::ldmatrix_x4("), std::string::npos) << b.source;
  const std::string p = ptx_of(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("mma.sync.aligned.m16n8k8"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, GemmWithTransposedWeightLoadsBothOperandsWithLdmatrix) {
  // weight is (OUT, IN): B's fragment rows run along k, so it loads with .x2 as well.
  nlohmann::json steps = concat_steps(
      {tensor_core_tile_steps("G", "i", "j", "k", "X", 4, "weight", 4, "", {128, 128, 64, 32, 32, "tf32", 3}),
       flat_grid_steps("Y", {"i", "j"})});
  KernelBundle b = bench_bundle("gemm_add_relu", steps);
  const std::string p = ptx_of(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x2.shared.b16"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, SharedOutputTileStoresWithVectorStores) {
  for (const char* problem : {"matmul", "bmm"}) {
    SCOPED_TRACE(problem);
    KernelBundle b =
        bench_bundle(problem, shared_output(matmul_mma_tile(std::string(problem) == "bmm" ? "b" : ""), "C"));
    EXPECT_NE(b.source.find("C_tile"), std::string::npos) << b.source;
    const std::string p = ptx_of(b);
    EXPECT_NE(p.find("st.global.v4.f32"), std::string::npos) << "the tile goes out 16 bytes at a time";
    EXPECT_NE(p.find("st.shared.v2.f32"), std::string::npos) << "accumulator pairs go into the tile 8 bytes at a time";
    EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
    EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
  }
}

// The warpgroup tile of the matmul best schedule: the instruction written for N = 256,
// fragments declared as 32-bit words held across the wait, one k-step in flight, the
// swizzled copy aligned for the 128-byte swizzle; PTX with wgmma and a CUBIN for sm_90a.
TEST(TensorCoreLoadsCompile, MatmulBestIssuesWarpgroupMmaWithAStepInFlight) {
  KernelBundle b = bench_bundle("matmul", find_problem("matmul").best_schedule);
  for (const char* text :
       {"wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "unsigned int C_fa[32]", "cusched::wgmma_wait<1>();",
        "cusched::hold_register(C_fa[16]);", "cusched::wgmma_wait<0>();",
        "__align__(1024) unsigned char cusched_smem[]", "cusched::async_proxy_fence();"})
    EXPECT_NE(b.source.find(text), std::string::npos) << text;
  const std::string p = ptx_of(b);
  EXPECT_NE(p.find("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"), std::string::npos);
  EXPECT_NE(p.find("wgmma.wait_group.sync.aligned 1"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

// The 3xtf32 warpgroup tile, with a k-step in flight and without: three instructions per
// k8 step, A's parts rounded to TF32 in registers (the low part from the high part read back
// as a float), B's parts in two more 1024-byte aligned shared buffers; PTX with the
// rounding and the instructions, a CUBIN for sm_90a.
TEST(TensorCoreLoadsCompile, ThreeTf32WarpgroupTileSplitsBothOperands) {
  for (int depth : {4, 2}) {
    SCOPED_TRACE("pipeline depth " + std::to_string(depth));
    KernelBundle b =
        bench_bundle("matmul", wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "", 128, 2, depth, "3xtf32"));
    for (const char* text : {"C_bhi", "C_blo", "cusched::round_tf32(", "cusched::async_proxy_fence();"})
      EXPECT_NE(b.source.find(text), std::string::npos) << text;
    // A's low part reads its high part back from the fragment, whose registers are declared
    // as 32-bit words: as the float they hold, not as an integer.
    EXPECT_NE(b.source.find("- __uint_as_float(C_fa["), std::string::npos) << b.source;
    const std::string p = ptx_of(b);
    size_t issued = 0;
    for (size_t at = p.find("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"); at != std::string::npos;
         at = p.find("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", at + 1))
      ++issued;
    EXPECT_EQ(issued % 3, 0u);
    EXPECT_GE(issued, 3u * 4) << "three instructions for each of a k-step's four k8 steps";
    EXPECT_NE(p.find("cvt.rna.tf32.f32"), std::string::npos);
    // The block splits B's tile four elements at a time: 16-byte shared loads and stores.
    EXPECT_NE(b.source.find("as one float4 access"), std::string::npos) << b.source;
    EXPECT_NE(p.find("st.shared.v4"), std::string::npos) << "16-byte stores of the parts";
    EXPECT_NE(p.find("ld.shared.v4"), std::string::npos) << "16-byte loads of B's tile";
    EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
  }
}

TEST(TensorCoreLoadsCompile, RandomWarpgroupTilesCompileForSm90a) {
  std::mt19937_64 rng(8);
  int compiled = 0;
  for (const char* name : {"matmul", "gemm_add_relu", "bmm"}) {
    const Problem& p = find_problem(name);
    const ScheduleContext ctx = p.context("small");
    for (int n = 0, found = 0; n < 400 && found < 3; ++n) {
      const nlohmann::json steps = random_schedule(ctx, rng);
      if (steps.dump().find("m64nNk8") == std::string::npos) continue;
      // Lowering may refuse what the schedule rules cannot see (a pipeline engine that the
      // shapes do not suit); such schedules are not warpgroup tiles to compile.
      KernelBundle b;
      try {
        b = make_bundle(lower(Schedule::from_json(ctx, steps), p.name));
      } catch (const UserError&) {
        continue;
      }
      ++found;
      EXPECT_NE(b.source.find("wgmma.mma_async.sync.aligned.m64n"), std::string::npos) << steps.dump();
      EXPECT_GT(sm90a_cubin_bytes(b), 1000u) << steps.dump();
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 9) << "the generator drew too few warpgroup tiles";
}

}  // namespace
}  // namespace cusched::runtime
