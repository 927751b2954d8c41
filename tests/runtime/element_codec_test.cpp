#include "runtime/element_codec.h"

#include <cmath>

#include <gtest/gtest.h>

namespace cusched::runtime {
namespace {

TEST(ElementCodec, HalfKnownBitPatterns) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7BFF);                      // largest finite half
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7C00);                          // overflows to +inf
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie rounds to even
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
}

TEST(ElementCodec, Bf16KnownBitPatterns) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(-3.0f), 0xC040);
  EXPECT_EQ(bf16_bits_to_float(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}

TEST(ElementCodec, StoreThenLoadEveryDtype) {
  unsigned char buf[8];
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64}) {
    store_element(t, -6.0, buf);
    EXPECT_EQ(load_element(t, buf), -6.0) << dtype_name(t);
  }
  store_element(DType::i32, 2.6, buf);
  EXPECT_EQ(load_element(DType::i32, buf), 3.0);
  store_element(DType::boolean, 0.3, buf);
  EXPECT_EQ(load_element(DType::boolean, buf), 1.0);
}

}  // namespace
}  // namespace cusched::runtime
