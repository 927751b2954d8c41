// Pipelines on the tensor memory accelerator (pipeline engine "tensor") compile for
// sm_90a to cp.async.bulk.tensor of the box's rank, with their tensor maps as
// __grid_constant__ parameters; a padded convolution's boxes start outside the source
// (the accelerator's zeros are the padding) and verify in the interpreter; and the
// runtime's tensor-map checks refuse what the driver cannot encode. No GPU is needed.

#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "problems/problem_file.h"
#include "runtime/compiled_code_scan.h"
#include "runtime/interp_verification.h"
#include "runtime/tensor_map.h"
#include "tests/padded_conv_steps.h"
#include "tests/runtime/bench_kernel_compile.h"
#include "tests/user_error_code.h"

namespace cusched::runtime {
namespace {

using testing::bench_bundle;
using testing::ptx_of;
using testing::sm90a_cubin_bytes;

// The matmul best's warpgroup tile with its copies unpadded on the tensor engine.
nlohmann::json wgmma_on_tensor_copies(int depth) {
  return wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 256, 2, depth, "tf32", "tensor");
}

Problem padded_conv() { return load_problem_file(test::padded_conv_file()); }

TEST(TensorCopyCompile, WgmmaMatmulOnTensorCopiesUsesTwoDimensionalBoxes) {
  KernelBundle b = bench_bundle("matmul", wgmma_on_tensor_copies(4));
  ASSERT_EQ(b.launches.at(0).tensor_maps.size(), 2u);
  EXPECT_NE(b.source.find("const __grid_constant__ cusched::TensorMap A_shared_map"), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
            std::string::npos);
  EXPECT_NE(ptx.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.try_wait.parity"), std::string::npos);
  // The maps are read where they are passed (cvta.param), not copied: no state the scans refuse.
  EXPECT_NE(ptx.find("cvta.param.u64"), std::string::npos);
  auto rejected = compiled_code_rejection(b, ptx);
  EXPECT_FALSE(rejected) << rejected->message;
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCopyCompile, Bf16MatmulBestUsesSixteenBitWgmmaOnTensorCopies) {
  KernelBundle b = bench_bundle("matmul_bf16", find_problem("matmul_bf16").best_schedule);
  ASSERT_EQ(b.launches.size(), 1u) << "the rounding to bf16 is folded into the product's stores";
  ASSERT_EQ(b.launches[0].tensor_maps.size(), 2u);
  // 64 bf16 elements (128 bytes) of k per swizzled row.
  EXPECT_EQ(b.launches[0].tensor_maps[0].box.back(), 64);
  // The A fragment is filled with the elements' own bits, two per register.
  EXPECT_NE(b.source.find("cusched::with_half_bits("), std::string::npos);
  EXPECT_EQ(b.source.find("cusched::with_bf16_half("), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
  auto rejected = compiled_code_rejection(b, ptx);
  EXPECT_FALSE(rejected) << rejected->message;
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCopyCompile, PaddedConvolutionBoxesStartInThePaddingAndVerify) {
  const Problem p = padded_conv();
  const Schedule s = Schedule::from_json(p.context("small"), test::padded_conv_tensor_steps());
  KernelBundle b = make_bundle(lower(s, p.name));
  // One four-dimensional box per stage of the pipeline, first at row -1 and at column -4,
  // the 16-byte aligned column before the region's -1.
  EXPECT_NE(b.source.find("cusched::tensor_copy_4d("), std::string::npos);
  EXPECT_NE(b.source.find("R_shared_map, -4, -1,"), std::string::npos) << b.source;
  EXPECT_NE(ptx_of(b).find("cp.async.bulk.tensor.4d"), std::string::npos);
  auto r = verify_with_interpreter(p, s, "small", 7, 2);
  EXPECT_EQ(verdict_name(r.verdict), "ok") << r.message;
}

TEST(TensorCopyCompile, TheRuntimeRefusesMapsTheDriverCannotEncode) {
  BufferSpec rows{"X", DType::f32, {64, 40}, BufferRole::Input};
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8, 8}, 0}, rows); }), "");
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8, 32}, 128}, rows); }), "");
  // Box rows of 6 floats (24 bytes); a box of another rank; an extent over 256.
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8, 6}, 0}, rows); }), "bad-tensor-map");
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8}, 0}, rows); }), "bad-tensor-map");
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {512, 8}, 0}, rows); }), "bad-tensor-map");
  // The 128-byte swizzle with rows of 64 bytes.
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8, 16}, 128}, rows); }), "bad-tensor-map");
  // Source rows of 42 floats: strides that are not multiples of 16 bytes.
  BufferSpec odd{"X", DType::f32, {64, 42}, BufferRole::Input};
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {8, 8}, 0}, odd); }), "bad-tensor-map");
  // Six dimensions.
  BufferSpec deep{"X", DType::f32, {2, 2, 2, 2, 2, 4}, BufferRole::Input};
  EXPECT_EQ(test::error_code([&] { check_tensor_map({"m", "X", {1, 1, 1, 1, 1, 4}, 0}, deep); }), "bad-tensor-map");
}

}  // namespace
}  // namespace cusched::runtime
