// The CUDA emitter on hand-built IR: source properties that matter for speed and
// correctness, and that every emitted program compiles with NVRTC to sm_90a CUBIN.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/device_library.h"
#include "dsl/error.h"
#include "hand_built_ir.h"
#include "nvrtc_check.h"
#include "scalar_emit.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

using test::error_code;
using test::has;
using test::ld;
using test::v;

void expect_source_compiles(const std::string& source) {
  test::NvrtcOutcome r = test::compile_with_nvrtc(source, device_headers());
  EXPECT_TRUE(r.compiled) << r.log << "\n--- source ---\n" << source;
  EXPECT_GT(r.cubin_bytes, 0u);
  EXPECT_EQ(r.log.find("warning"), std::string::npos) << r.log << "\n--- source ---\n" << source;
}

TEST(CudaEmitter, ProvablyAlignedVectorLoopBecomesFloat4) {
  std::string src = emit_cuda(test::elementwise_program(4, 4, 0));
  EXPECT_TRUE(has(src, "float4")) << src;
  EXPECT_TRUE(has(src, "#include \"cusched_device.cuh\"")) << src;
  EXPECT_TRUE(has(src, "extern \"C\" __global__ void add_kernel(")) << src;
  EXPECT_TRUE(has(src, "const float* __restrict__ A")) << src;
  EXPECT_TRUE(has(src, "const float* __restrict__ B")) << src;
  EXPECT_TRUE(has(src, "float* __restrict__ C")) << src;
  EXPECT_FALSE(has(src, "const float* __restrict__ C")) << src;
  EXPECT_TRUE(has(src, "const int io = blockIdx.x;")) << src;
  EXPECT_TRUE(has(src, "const int ii = threadIdx.x;")) << src;
  EXPECT_FALSE(has(src, "if (ii <")) << "a thread loop as wide as the block needs no guard\n" << src;
  EXPECT_FALSE(has(src, "double")) << src;
  expect_source_compiles(src);
}

// A kernel launched as a programmatic dependent may start before the previous kernel
// ends: it must wait for it before its first load or store.
TEST(CudaEmitter, EveryKernelWaitsForThePreviousGridBeforeItsFirstAccess) {
  std::string src = emit_cuda(test::elementwise_program(4, 4, 0));
  const size_t body = src.find("add_kernel(");
  ASSERT_NE(body, std::string::npos) << src;
  const size_t allow = src.find("cusched::allow_next_grid();", body);
  const size_t wait = src.find("cusched::wait_for_previous_grid();", body);
  ASSERT_NE(allow, std::string::npos) << src;
  ASSERT_NE(wait, std::string::npos) << src;
  EXPECT_LT(allow, wait);
  const size_t first_access = std::min(src.find("A[", body), src.find("C[", body));
  ASSERT_NE(first_access, std::string::npos) << src;
  EXPECT_LT(wait, first_access) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, TwoLaneVectorLoopBecomesFloat2) {
  std::string src = emit_cuda(test::elementwise_program(2, 2, 0));
  EXPECT_TRUE(has(src, "float2")) << src;
  EXPECT_FALSE(has(src, "float4")) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, UnprovableAlignmentFallsBackToUnrolledScalarCode) {
  // Stride 2 with 4 lanes: ii * 2 is not a multiple of 4.
  std::string strided = emit_cuda(test::elementwise_program(4, 2, 0));
  EXPECT_FALSE(has(strided, "float4")) << strided;
  EXPECT_TRUE(has(strided, "#pragma unroll")) << strided;
  expect_source_compiles(strided);
  // An offset of one element: the base is never a multiple of 4.
  std::string shifted = emit_cuda(test::elementwise_program(4, 4, 1));
  EXPECT_FALSE(has(shifted, "float4")) << shifted;
  EXPECT_TRUE(has(shifted, "#pragma unroll")) << shifted;
}

TEST(CudaEmitter, LaunchBoundsAppearWhenSet) {
  LoweredProgram p = test::elementwise_program(4, 4, 0);
  EXPECT_FALSE(has(emit_cuda(p), "__launch_bounds__"));
  p.kernels[0].launch_max_threads = 64;
  p.kernels[0].launch_min_blocks = 4;
  std::string src = emit_cuda(p);
  EXPECT_TRUE(has(src, "__launch_bounds__(64, 4) add_kernel(")) << src;
  p.kernels[0].launch_min_blocks = 0;
  EXPECT_TRUE(has(emit_cuda(p), "__launch_bounds__(64) add_kernel("));
  expect_source_compiles(src);
}

TEST(CudaEmitter, HeaderCommentNamesProblemScheduleAndSteps) {
  LoweredProgram p = test::elementwise_program(4, 4, 0);
  p.schedule_hash = "abc123";
  p.schedule_text = {"split C.i by 4 -> io, ii", "a step ending in a backslash \\"};
  std::string src = emit_cuda(p);
  EXPECT_TRUE(has(src, "// problem: add")) << src;
  EXPECT_TRUE(has(src, "// schedule: abc123")) << src;
  EXPECT_TRUE(has(src, "//   split C.i by 4 -> io, ii")) << src;
  EXPECT_TRUE(has(src, "// precision: f32")) << src;
  expect_source_compiles(src);  // the backslash does not swallow the next line
}

TEST(CudaEmitter, BlockReductionWithSharedTileAndBarrier) {
  std::string src = emit_cuda(test::block_sum_program());
  EXPECT_TRUE(has(src, "__shared__ __align__(16) float tile[256];")) << src;
  EXPECT_TRUE(has(src, "float acc[1];")) << src;
  EXPECT_TRUE(has(src, "__syncthreads();")) << src;
  EXPECT_TRUE(has(src, "cusched::block_allreduce<cusched::SumOp>(acc[0], 256, cusched_reduce0)")) << src;
  EXPECT_TRUE(has(src, "float cusched_reduce0[8];")) << "one scratch value per warp of 256 threads\n" << src;
  EXPECT_TRUE(has(src, "#pragma unroll")) << src;
  EXPECT_FALSE(has(src, "extern __shared__")) << src;
  EXPECT_FALSE(has(src, "double")) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, ReductionOverThreadIdxYUsesExplicitGroups) {
  std::string src = emit_cuda(test::y_axis_sum_program());
  EXPECT_TRUE(
      has(src, "cusched::block_allreduce_strided<cusched::SumOp>(acc[0], static_cast<int>(threadIdx.y), 8, 32,"))
      << src;
  EXPECT_TRUE(has(src, "[256];")) << "one scratch value per thread of the block\n" << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, WarpArgmaxUsesShufflePairs) {
  std::string src = emit_cuda(test::argmax_program(32, "warp"));
  EXPECT_TRUE(has(src, "cusched::warp_allreduce_parts<cusched::ArgMaxOp>(32, val[0], idx[0]);")) << src;
  EXPECT_TRUE(has(src, "long long* __restrict__ Out")) << src;
  EXPECT_TRUE(has(src, "long long idx[1];")) << src;
  EXPECT_FALSE(has(src, "__shared__")) << "a warp reduction needs no shared memory\n" << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, BlockArgmaxCombinesWarpsThroughScratch) {
  std::string src = emit_cuda(test::argmax_program(128, "block"));
  EXPECT_TRUE(has(src,
                  "cusched::block_allreduce_parts<cusched::ArgMaxOp>(128, cusched::reduce_part(val[0], "
                  "cusched_reduce0), cusched::reduce_part(idx[0], cusched_reduce0_index));"))
      << src;
  EXPECT_TRUE(has(src, "long long cusched_reduce0_index[4];")) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, AllReduceWidthThatDoesNotDivideTheBlockIsRejected) {
  LoweredProgram p = test::argmax_program(32, "warp");
  p.kernels[0].block = {48, 1, 1};
  EXPECT_EQ(error_code([&] { emit_cuda(p); }), "allreduce-width-mismatch");
}

TEST(CudaEmitter, UndeclaredParameterIsRejected) {
  LoweredProgram p = test::elementwise_program(4, 4, 0);
  p.kernels[0].params.push_back("Z");
  EXPECT_EQ(error_code([&] { emit_cuda(p); }), "unknown-buffer");
}

TEST(CudaEmitter, SiblingScopesMayReuseNamesAndIfHasElse) {
  // Two sibling allocations named "tmp" at the same level, and an if / else.
  auto use_tmp = [](float scale) {
    return make_allocate("tmp", MemScope::Register, DType::f32, 1,
                         make_block({make_store("tmp", 0, ld("A", DType::f32, v("t")) * scale),
                                     make_if(v("t") < 16, make_store("Out", v("t"), ld("tmp", DType::f32, 0)),
                                             make_store("Out", v("t"), -ld("tmp", DType::f32, 0)))}));
  };
  LoweredProgram p = test::scalar_program(0.0f);
  p.kernels[0].body =
      make_for("b", 0, 1, LoopKind::Serial, GpuAxis::BlockX,
               make_for("t", 0, 32, LoopKind::Serial, GpuAxis::ThreadX, make_block({use_tmp(2.0f), use_tmp(3.0f)})));
  std::string src = emit_cuda(p);
  EXPECT_TRUE(has(src, "} else {")) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, LargeSharedArraysUseOneDynamicArray) {
  EmittedCuda e = emit_cuda_program(test::large_shared_program());
  EXPECT_TRUE(has(e.source, "extern __shared__ __align__(16) unsigned char cusched_smem[];")) << e.source;
  EXPECT_TRUE(has(e.source, "float* tile = reinterpret_cast<float*>(cusched_smem + 0);")) << e.source;
  EXPECT_FALSE(has(e.source, "__shared__ __align__(16) float tile")) << e.source;
  ASSERT_EQ(e.dynamic_smem_bytes.size(), 1u);
  EXPECT_EQ(e.dynamic_smem_bytes[0], 16384 * 4);
  expect_source_compiles(e.source);
}

TEST(CudaEmitter, IndicesPastTwoToThe31AreLongLong) {
  std::string src = emit_cuda(test::wide_copy_program());
  EXPECT_TRUE(has(src, "static_cast<long long>(io) * 65536LL")) << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, ALongLongIndexComputesItsPartsThatFitInInt) {
  // io * 65536 passes 2^31 - 1; the within-row part (ii < 65536) does not.
  Expr index = v("io") * 65536 + (v("ii") / 256 % 16 * 4096 + v("ii") % 256);
  std::string src = emit_cuda(test::wide_copy_program(index));
  EXPECT_TRUE(
      has(src, "static_cast<long long>(io) * 65536LL + static_cast<long long>(ii / 256 % 16 * 4096 + ii % 256)"))
      << src;
  EXPECT_FALSE(has(src, "256LL")) << "the part within a row stays int\n" << src;
  expect_source_compiles(src);
}

TEST(CudaEmitter, ReferenceVariantComputesInDouble) {
  LoweredProgram p = test::elementwise_program(4, 4, 0);
  std::string src = emit_cuda(p, {.reference_f64 = true});
  EXPECT_TRUE(has(src, "double* __restrict__ C")) << src;
  EXPECT_TRUE(has(src, "const float* __restrict__ A")) << "inputs keep their type\n" << src;
  EXPECT_TRUE(has(src, "static_cast<double>(A[")) << "inputs are widened when read\n" << src;
  EXPECT_TRUE(has(src, "2.0 * ")) << src;
  EXPECT_FALSE(has(src, "float4")) << src;
  EXPECT_FALSE(has(src, "2.0f")) << src;
  expect_source_compiles(src);

  std::string reduction = emit_cuda(test::block_sum_program(), {.reference_f64 = true});
  EXPECT_TRUE(has(reduction, "__shared__ __align__(16) double tile[256];")) << reduction;
  EXPECT_TRUE(has(reduction, "double acc[1];")) << reduction;
  EXPECT_TRUE(has(reduction, "double cusched_reduce0[8];")) << reduction;
  expect_source_compiles(reduction);
}

}  // namespace
}  // namespace cusched
