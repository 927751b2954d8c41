// Rounding to the GPU's operand formats, with expected values derived from the
// formats' definitions (significand width, tie rule), not from the code.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "codegen/interp_rounding.h"

namespace cusched {
namespace {

double p2(int e) { return std::ldexp(1.0, e); }

TEST(Rounding, Tf32KeepsTenMantissaBitsWithTiesAwayFromZero) {
  EXPECT_EQ(round_to_tf32(1 + p2(-10)), 1 + p2(-10));     // representable
  EXPECT_EQ(round_to_tf32(1 + p2(-11)), 1 + p2(-10));     // exact half: away from zero
  EXPECT_EQ(round_to_tf32(1 + p2(-12)), 1.0);             // below half: down
  EXPECT_EQ(round_to_tf32(1 + 3 * p2(-11)), 1 + p2(-9));  // half between 1+2^-10 and 1+2^-9: away, which is also even
  EXPECT_EQ(round_to_tf32(-(1 + p2(-11))), -(1 + p2(-10)));
  EXPECT_EQ(round_to_tf32(1 + 5 * p2(-11)),
            1 + 3 * p2(-10));  // half between 2 and 3 quanta: away (odd), unlike nearest-even
  EXPECT_EQ(round_to_tf32(1 + p2(-11) + p2(-20)), 1 + p2(-10));
  // A float whose low 13 bits are set rounds up into the next tf32 value.
  float f = 0;
  uint32_t bits = 0x3f801fffu;  // 1 + (2^13 - 1) * 2^-23
  std::memcpy(&f, &bits, 4);
  EXPECT_EQ(round_to_tf32(f), 1 + p2(-10));
}

TEST(Rounding, Bf16AndF16RoundToNearestEven) {
  EXPECT_EQ(round_to_bf16(1 + p2(-8)), 1.0);             // half: even (1.0000000)
  EXPECT_EQ(round_to_bf16(1 + 3 * p2(-8)), 1 + p2(-6));  // half: even (1.0000010)
  EXPECT_EQ(round_to_bf16(1 + p2(-8) + p2(-30)), 1 + p2(-7));
  EXPECT_EQ(round_to_f16(1 + p2(-11)), 1.0);
  EXPECT_EQ(round_to_f16(1 + 3 * p2(-11)), 1 + p2(-9));
  EXPECT_EQ(round_to_f16(65504.0), 65504.0);       // largest finite half
  EXPECT_TRUE(std::isinf(round_to_f16(65520.0)));  // half way to 2^16 rounds to even: overflow
  EXPECT_EQ(round_to_f16(65519.0), 65504.0);
  EXPECT_EQ(round_to_f16(p2(-24)), p2(-24));  // smallest subnormal half
  EXPECT_EQ(round_to_f16(p2(-26)), 0.0);      // below half of it
  EXPECT_EQ(round_to_f16(3 * p2(-26)), p2(-24));
}

TEST(Rounding, F32MatchesTheHardwareConversion) {
  EXPECT_EQ(round_to_f32(1e8 + 1), 1e8);
  EXPECT_EQ(round_to_f32(0.1), static_cast<double>(0.1f));
  EXPECT_EQ(round_to_f32(1 + p2(-24)), 1.0);
  EXPECT_EQ(round_to_f32(1 + 3 * p2(-24)), 1 + p2(-22));
}

TEST(Rounding, ConversionsToIntegerTypesTruncateTowardZero) {
  EXPECT_EQ(convert_to_dtype(2.7, DType::i32), 2.0);
  EXPECT_EQ(convert_to_dtype(-2.7, DType::i32), -2.0);
  EXPECT_EQ(convert_to_dtype(-2.7, DType::i64), -2.0);
  EXPECT_EQ(convert_to_dtype(0.5, DType::boolean), 1.0);
  EXPECT_EQ(convert_to_dtype(0.0, DType::boolean), 0.0);
  EXPECT_EQ(convert_to_dtype(1e8 + 1, DType::f64), 1e8 + 1);
}

}  // namespace
}  // namespace cusched
