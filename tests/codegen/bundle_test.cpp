// Kernel bundles: source, embedded headers, buffers (f64 in the reference variant)
// and one launch per kernel.
#include "codegen/bundle.h"

#include <gtest/gtest.h>

#include "codegen/device_library.h"
#include "hand_built_ir.h"

namespace cusched {
namespace {

TEST(Bundle, CarriesSourceHeadersBuffersAndLaunches) {
  LoweredProgram p = test::block_sum_program();
  KernelBundle b = make_bundle(p);
  EXPECT_EQ(b.problem, "row_sum");
  EXPECT_EQ(b.precision, Precision::f32);
  EXPECT_EQ(b.source, emit_cuda(p));
  EXPECT_EQ(b.headers, device_headers());
  ASSERT_EQ(b.buffers.size(), 2u);
  EXPECT_EQ(b.buffers[1].dtype, DType::f32);
  ASSERT_EQ(b.launches.size(), 1u);
  const LaunchSpec& l = b.launches[0];
  EXPECT_EQ(l.kernel, "row_sum_kernel");
  EXPECT_EQ(l.grid, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(l.block, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(l.dynamic_smem_bytes, 0);
  EXPECT_EQ(l.args, (std::vector<std::string>{"A", "B"}));
}

TEST(Bundle, ReferenceVariantWidensOutputsOnly) {
  KernelBundle b = make_bundle(test::elementwise_program(4, 4, 0), {.reference_f64 = true});
  EXPECT_EQ(b.precision, Precision::f64);
  ASSERT_EQ(b.buffers.size(), 3u);
  EXPECT_EQ(b.find_buffer("A")->dtype, DType::f32);
  EXPECT_EQ(b.find_buffer("B")->dtype, DType::f32);
  EXPECT_EQ(b.find_buffer("C")->dtype, DType::f64);
  EXPECT_EQ(b.find_buffer("C")->bytes(), 1024 * 256 * 8);
}

TEST(Bundle, DynamicSharedMemoryReachesTheLaunch) {
  KernelBundle b = make_bundle(test::large_shared_program());
  ASSERT_EQ(b.launches.size(), 1u);
  EXPECT_EQ(b.launches[0].dynamic_smem_bytes, 65536);
}

TEST(Bundle, RecordsFastMathExceptInTheReference) {
  LoweredProgram p = test::elementwise_program(4, 4, 0);
  EXPECT_EQ(make_bundle(p).math, "exact");
  p.math = "fast";
  EXPECT_EQ(make_bundle(p).math, "fast");
  EXPECT_EQ(KernelBundle::from_json(make_bundle(p).to_json()).math, "fast");
  EXPECT_EQ(make_bundle(p, {.reference_f64 = true}).math, "exact");
}

TEST(Bundle, SurvivesJsonRoundTrip) {
  KernelBundle b = make_bundle(test::argmax_program(32, "warp"));
  KernelBundle c = KernelBundle::from_json(b.to_json());
  EXPECT_EQ(c.source, b.source);
  EXPECT_EQ(c.headers, b.headers);
  ASSERT_EQ(c.launches.size(), 1u);
  EXPECT_EQ(c.launches[0].args, b.launches[0].args);
  EXPECT_EQ(c.find_buffer("Out")->dtype, DType::i64);
}

}  // namespace
}  // namespace cusched
