// Which accesses of a vectorized loop over lanes v = first .. first + lanes - 1 become one
// vector (codegen/cuda_vector_access.h): base + v ascending, base - v descending (the
// vector then starts at the last lane), each only where the vector's lowest index is a
// multiple of the lane count whatever the other variables are.
#include <gtest/gtest.h>

#include "codegen/cuda_vector_access.h"
#include "hand_built_ir.h"

namespace cusched {
namespace {

using test::v;

TEST(VectorLaneDirection, AscendingAndDescendingAlignedIndices) {
  const Expr row = v("i") * make_int(32768);
  // i * 32768 + t * 16 + v: ascending, aligned at v = 0.
  EXPECT_EQ(aligned_lane_direction(row + v("t") * make_int(16) + v("v"), "v", 0, 4), 1);
  // i * 32768 + 32767 - t * 16 - v: descending, its lowest element at v = 3 is 32764 - 16t.
  const Expr reversed = row + make_int(32767) - v("t") * make_int(16) - v("v");
  EXPECT_EQ(aligned_lane_direction(reversed, "v", 0, 4), -1);
  EXPECT_NE(aligned_lane_direction(reversed, "v", 0, 4), 1);
  // 32766 - v: the lowest element 32763 is not a multiple of 4.
  EXPECT_EQ(aligned_lane_direction(row + make_int(32766) - v("v"), "v", 0, 4), 0);
  // Two lanes from v = 2: 34 - v reads 32, 31 (lowest 31, not a multiple of 2); 33 - v reads 31, 30.
  EXPECT_EQ(aligned_lane_direction(make_int(34) - v("v"), "v", 2, 2), 0);
  EXPECT_EQ(aligned_lane_direction(make_int(33) - v("v"), "v", 2, 2), -1);
  // A stride of 2 per lane, or another variable with an odd coefficient: no vector.
  EXPECT_EQ(aligned_lane_direction(make_int(64) - v("v") * make_int(2), "v", 0, 4), 0);
  EXPECT_EQ(aligned_lane_direction(make_int(63) + v("t") * make_int(3) - v("v"), "v", 0, 4), 0);
}

}  // namespace
}  // namespace cusched
