#include "runtime/performance_floor.h"

#include <gtest/gtest.h>

#include "dsl/error.h"

namespace cusched::runtime {
namespace {

TEST(PerformanceFloor, MemoryBoundFloorIsBytesOverBandwidth) {
  Floor f{4e9, 1e9, Precision::f32};  // 4 GB at 4 TB/s = 1 ms; 1 GFLOP at 51 TFLOP/s = 0.0196 ms
  EXPECT_NEAR(floor_ms(f, {4e12, 0}), 1.0, 1e-12);
}

// With a read rate above the copy rate: a read-only problem (all bytes read) is timed
// at the read rate, a copy-shaped one (half read, half written) at the copy rate, and
// a problem that writes more than it reads pays the copy's cost of writing.
TEST(PerformanceFloor, ReadsGoAtTheReadRateAndWritesAtWhatACopyAddsToThem) {
  const MemoryBandwidth bw{4e12, 5e12};
  Floor read_only{5e9, 0, Precision::f32, 0};
  EXPECT_NEAR(floor_ms(read_only, bw), 1.0, 1e-12);
  Floor copy{4e9, 0, Precision::f32, 2e9};
  EXPECT_NEAR(floor_ms(copy, bw), 1.0, 1e-12);
  Floor mostly_written{4e9, 0, Precision::f32, 3e9};  // 1 GB / 5 TB/s + 3 GB x (2 / 4 - 1 / 5) / 1e12 s
  EXPECT_NEAR(floor_ms(mostly_written, bw), 0.2 + 0.9, 1e-12);
  // A read rate measured at or below the copy rate is not trusted: bytes / copy.
  EXPECT_NEAR(floor_ms(read_only, {5e12, 4e12}), 1.0, 1e-12);
  EXPECT_NEAR(floor_ms(read_only, {5e12, 0}), 1.0, 1e-12);
}

TEST(PerformanceFloor, ComputeBoundFloorUsesThePrecisionRate) {
  Floor f{1e6, 2 * 4096.0 * 4096.0 * 4096.0, Precision::tf32};
  EXPECT_NEAR(floor_ms(f, {4.27e12, 0}), 2 * 4096.0 * 4096.0 * 4096.0 / 364e12 * 1e3, 1e-9);
  f.precision = Precision::f32;
  EXPECT_NEAR(floor_ms(f, {4.27e12, 0}), 2 * 4096.0 * 4096.0 * 4096.0 / 51e12 * 1e3, 1e-9);
  EXPECT_EQ(flop_rate(Precision::bf16), 730e12);
  EXPECT_EQ(flop_rate(Precision::f16), 730e12);
  // 3xtf32 spends three TF32 products on each f32 product.
  f.precision = Precision::x3tf32;
  EXPECT_NEAR(floor_ms(f, {4.27e12, 0}),
              3 * floor_ms(Floor{1e6, 2 * 4096.0 * 4096.0 * 4096.0, Precision::tf32}, {4.27e12, 0}), 1e-9);
}

// The least possible time goes at the memory's peak rate, whatever share is written,
// and falls back to the floor when the peak is unknown.
TEST(PerformanceFloor, LeastPossibleTimeIsBytesOverThePeakOrTheFloor) {
  const MemoryBandwidth bw{4e12, 4.4e12, 4.8e12};
  Floor mse{8.6e9, 1e9, Precision::f32, 0};
  EXPECT_NEAR(least_possible_ms(mse, bw), 8.6e9 / 4.8e12 * 1e3, 1e-12);
  EXPECT_LT(least_possible_ms(mse, bw), floor_ms(mse, bw));
  Floor copy{4e9, 0, Precision::f32, 2e9};
  EXPECT_NEAR(least_possible_ms(copy, bw), 4e9 / 4.8e12 * 1e3, 1e-12);
  EXPECT_EQ(least_possible_ms(mse, {4e12, 4.4e12, 0}), floor_ms(mse, {4e12, 4.4e12, 0}));
  Floor matmul{1e6, 2 * 4096.0 * 4096.0 * 4096.0, Precision::tf32};
  EXPECT_NEAR(least_possible_ms(matmul, bw), floor_ms(matmul, bw), 1e-12);
}

TEST(PerformanceFloor, UnknownPrecisionNameIsAnError) {
  EXPECT_EQ(parse_precision("fp8"), Precision::fp8);
  // Hopper's dense FP8 tensor-core rate is twice its BF16 rate.
  Floor products{1e6, 2 * 8192.0 * 8192.0 * 8192.0, Precision::fp8};
  Floor bf16 = products;
  bf16.precision = Precision::bf16;
  EXPECT_NEAR(2 * floor_ms(products, {4.27e12, 0}), floor_ms(bf16, {4.27e12, 0}), 1e-9);
  try {
    parse_precision("fp4");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unknown-precision");
  }
}

TEST(PerformanceFloor, NoFloorGivesZero) { EXPECT_EQ(floor_ms(Floor{}, {4e12, 5e12}), 0.0); }

TEST(TimeSummary, MedianMinMax) {
  TimeSummary odd = summarize_times({3, 1, 2});
  EXPECT_EQ(odd.median_ms, 2);
  EXPECT_EQ(odd.min_ms, 1);
  EXPECT_EQ(odd.max_ms, 3);
  EXPECT_EQ(summarize_times({4, 1, 2, 3}).median_ms, 2.5);
  EXPECT_EQ(summarize_times({}).median_ms, 0);
}

}  // namespace
}  // namespace cusched::runtime
