// On the GPU: what the tensor cores make of f32 operands. mma.sync m16n8k8 .tf32 reads
// each f32 operand by its top 19 bits (truncation to tf32), which the lowering (no
// cvt.rna per fragment element) and the interpreter's Mma rely on; the device library's
// 3xTF32 split stays close to f32. Each test skips without a CUDA driver.
#include <string>

#include <gtest/gtest.h>

#include "codegen/device_library.h"
#include "runtime/cuda_driver.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {
namespace {

constexpr int kTiles = 4096;  // one warp per 16 x 8 tile over k = 8

// A bundle over the tiles: kernel `kernel` of `threads` threads per tile reads A (16 x 8) and
// B (8 x 8) and writes C (16 x 8) of `out` elements, with the device headers.
KernelBundle tile_bundle(const std::string& name, Precision precision, DType out, const std::string& kernel,
                         int threads, std::string source) {
  KernelBundle b;
  b.problem = name;
  b.precision = precision;
  b.headers = device_headers();
  b.source = std::move(source);
  b.buffers = {{"A", DType::f32, {kTiles, 16, 8}, BufferRole::Input, false},
               {"B", DType::f32, {kTiles, 8, 8}, BufferRole::Input, false},
               {"C", out, {kTiles, 16, 8}, BufferRole::Output, false}};
  b.launches = {{kernel, {kTiles, 1, 1}, {threads, 1, 1}, 0, {"A", "B", "C"}}};
  return b;
}

// One warp per tile: C(16x8) = A(16x8) B(8x8) by the device library's call `mma`.
KernelBundle tile_kernel(const std::string& mma) {
  return tile_bundle(
      "mma_tile", Precision::tf32, DType::f32, "k", 32,
      "#include \"cusched_device.cuh\"\n"
      "extern \"C\" __global__ void k(const float* A, const float* B, float* C) {\n"
      "  const int t = blockIdx.x, g = threadIdx.x / 4, q = threadIdx.x % 4;\n"
      "  const float* a = A + t * 128; const float* b = B + t * 64; float* c = C + t * 128;\n"
      "  const float fa[4] = {a[g * 8 + q], a[(g + 8) * 8 + q], a[g * 8 + q + 4], a[(g + 8) * 8 + q + 4]};\n"
      "  const float fb[2] = {b[q * 8 + g], b[(q + 4) * 8 + g]};\n"
      "  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
      "  cusched::" +
          mma +
          "(acc, fa, fb, acc);\n"
          "  c[g * 8 + 2 * q] = acc[0]; c[g * 8 + 2 * q + 1] = acc[1];\n"
          "  c[(g + 8) * 8 + 2 * q] = acc[2]; c[(g + 8) * 8 + 2 * q + 1] = acc[3];\n}\n");
}

// The tile in double, each operand passed through `op` (a device expression of x).
KernelBundle tile_reference(const std::string& op) {
  return tile_bundle("mma_tile_reference", Precision::f64, DType::f64, "r", 128,
                     "#include \"cusched_device.cuh\"\n"
                     "__device__ double op(float x) { return (double)(" +
                         op +
                         "); }\n"
                         "extern \"C\" __global__ void r(const float* A, const float* B, double* C) {\n"
                         "  const int t = blockIdx.x, i = threadIdx.x / 8, j = threadIdx.x % 8;\n"
                         "  double s = 0;\n"
                         "  for (int k = 0; k < 8; ++k) s += op(A[t * 128 + i * 8 + k]) * op(B[t * 64 + k * 8 + j]);\n"
                         "  C[t * 128 + i * 8 + j] = s;\n}\n");
}

const char* kTruncated = "__uint_as_float(__float_as_uint(x) & 0xFFFFE000u)";
const char* kRounded = "cusched::round_tf32(x)";

EvalResult run_tile(const std::string& mma, const std::string& op, const Tolerance& tol) {
  EvalRequest r;
  r.candidate = tile_kernel(mma);
  r.reference = tile_reference(op);
  r.inputs = {{"A", {"uniform", -1, 1}, std::nullopt}, {"B", {"uniform", -1, 1}, std::nullopt}};
  r.tol = tol;
  r.base_seed = 4242;
  r.time_it = false;
  r.watchdog_s = 10;
  r.host_check = true;
  return evaluate(r);
}

// Products of tf32 values are exact; only the instruction's own sum of eight rounds. Taking
// the other operand rounding instead moves a sum by about 1e-4.
const Tolerance kSumOfEight{1e-5, 1e-5, 1e-5};

TEST(GpuTensorCoreOperands, MmaSyncTruncatesTf32OperandsItReadsAsF32) {
  if (auto e = driver_available()) GTEST_SKIP() << e->message;
  const EvalResult truncated = run_tile("mma_m16n8k8_tf32", kTruncated, kSumOfEight);
  EXPECT_EQ(truncated.verdict, Verdict::ok) << truncated.message << " max abs " << truncated.max_abs_err;
  // The inputs tell the two apart: the same kernel is not the rounded operands' product.
  const EvalResult rounded = run_tile("mma_m16n8k8_tf32", kRounded, kSumOfEight);
  EXPECT_EQ(rounded.verdict, Verdict::wrong_output) << "max abs " << rounded.max_abs_err;
  EXPECT_GT(rounded.max_abs_err, 1e-4);
}

TEST(GpuTensorCoreOperands, ThreeTf32SplitIsCloseToF32) {
  if (auto e = driver_available()) GTEST_SKIP() << e->message;
  const EvalResult split = run_tile("mma_m16n8k8_3xtf32", "x", kSumOfEight);
  EXPECT_EQ(split.verdict, Verdict::ok) << split.message << " max abs " << split.max_abs_err;
  const EvalResult single = run_tile("mma_m16n8k8_tf32", "x", kSumOfEight);
  EXPECT_EQ(single.verdict, Verdict::wrong_output) << "max abs " << single.max_abs_err;
}

}  // namespace
}  // namespace cusched::runtime
