// The wgmma register and shared-memory layouts against the PTX ISA's fragment figures
// for wgmma.mma_async (asynchronous warpgroup MMA): entries read off the figures for
// particular threads, and the properties every layout must have (each element of A held
// by exactly one thread, B's swizzled rows inside their 1024-byte atoms).
#include "codegen/wgmma_layout.h"

#include <set>

#include <gtest/gtest.h>

namespace cusched {
namespace {

TEST(WgmmaLayout, K16AElementsFollowTheFigure) {
  // Thread 0 (warp 0, group 0, quad 0) holds a0, a1 at row 0, columns 0 and 1; a2, a3 at
  // row 8; a4, a5 at columns 8 and 9; a6, a7 at row 8, columns 8 and 9.
  const std::pair<int, int> t0[8] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}};
  for (int i = 0; i < 8; ++i) {
    const WgmmaElement e = wgmma_a_element(0, i, Precision::bf16);
    EXPECT_EQ(std::make_pair(e.row, e.col), t0[i]) << "a" << i;
  }
  // Thread 37: warp 1 (rows 16..31), group 1, quad 1 (columns 2, 3 and 10, 11).
  EXPECT_EQ(wgmma_a_element(37, 0, Precision::f16).row, 17);
  EXPECT_EQ(wgmma_a_element(37, 0, Precision::f16).col, 2);
  EXPECT_EQ(wgmma_a_element(37, 7, Precision::f16).row, 25);
  EXPECT_EQ(wgmma_a_element(37, 7, Precision::f16).col, 11);
}

TEST(WgmmaLayout, EachAElementIsHeldByExactlyOneThread) {
  for (Precision p : {Precision::tf32, Precision::bf16}) {
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < kWgmmaThreads; ++t)
      for (int i = 0; i < wgmma_a_elements(p); ++i) {
        const WgmmaElement e = wgmma_a_element(t, i, p);
        EXPECT_TRUE(e.row >= 0 && e.row < kWgmmaM && e.col >= 0 && e.col < wgmma_k(p));
        EXPECT_TRUE(seen.insert({e.row, e.col}).second) << precision_name(p) << " thread " << t << " a" << i;
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(kWgmmaM * wgmma_k(p))) << precision_name(p);
  }
}

TEST(WgmmaLayout, SixteenBitBRowsAreTheSame128BytesAsTf32Rows) {
  // Element k of a 2-byte row lies where byte 2k of the 4-byte layout does: the same
  // 16-byte chunk, XORed with the row within its 8-row atom.
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 64; k += 2) {
      EXPECT_EQ(wgmma_b_address(0, k, n, 2), wgmma_b_address(0, k / 2, n, 4)) << n << ", " << k;
      const int64_t a = wgmma_b_address(1024, k, n, 2);
      EXPECT_EQ(a / 1024, 1 + n / 8);                   // its 8-row atom
      EXPECT_EQ(a % 1024 / 128, n % 8);                 // its row
      EXPECT_EQ(a % 128 / 16, (k * 2 / 16) ^ (n % 8));  // its chunk, swizzled
    }
  EXPECT_EQ(wgmma_k(Precision::bf16), 16);
  EXPECT_EQ(wgmma_k(Precision::tf32), 8);
}

}  // namespace
}  // namespace cusched
