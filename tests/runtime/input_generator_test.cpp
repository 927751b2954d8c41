#include "runtime/input_generator.h"

#include <cmath>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "runtime/element_codec.h"

namespace cusched::runtime {
namespace {

BufferSpec buffer(DType t, int64_t n) {
  BufferSpec b;
  b.name = "x";
  b.dtype = t;
  b.shape = {n};
  return b;
}

std::vector<double> values(const BufferSpec& b, const std::vector<uint8_t>& raw) {
  std::vector<double> v;
  for (int64_t i = 0; i < b.elements(); ++i) v.push_back(load_element(b.dtype, raw.data() + i * dtype_bytes(b.dtype)));
  return v;
}

TEST(InputGenerator, SameSeedSameDataOtherSeedOtherData) {
  auto b = buffer(DType::f32, 1000);
  EXPECT_EQ(generate_input(b, {}, 1), generate_input(b, {}, 1));
  EXPECT_NE(generate_input(b, {}, 1), generate_input(b, {}, 2));
}

TEST(InputGenerator, TrialSeedsDifferByTrialAndBuffer) {
  EXPECT_NE(trial_seed(0, 0, "A"), trial_seed(0, 1, "A"));
  EXPECT_NE(trial_seed(0, 0, "A"), trial_seed(0, 0, "B"));
  EXPECT_NE(trial_seed(0, 0, "A"), trial_seed(1, 0, "A"));
  EXPECT_EQ(trial_seed(5, 2, "A"), trial_seed(5, 2, "A"));
}

TEST(InputGenerator, NormalHasItsMeanAndSpread) {
  auto b = buffer(DType::f64, 200000);
  auto v = values(b, generate_input(b, {"normal", 10.0, 2.0}, 7));
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  double mean = sum / static_cast<double>(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 10.0, 0.05);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(v.size())), 2.0, 0.05);
}

TEST(InputGenerator, UniformAndRandintStayInRange) {
  auto f = buffer(DType::f32, 5000);
  for (double x : values(f, generate_input(f, {"uniform", -1.0, 3.0}, 3))) {
    EXPECT_GE(x, -1.0);
    EXPECT_LE(x, 3.0);
  }
  auto i = buffer(DType::i32, 5000);
  std::vector<int> seen(4, 0);
  for (double x : values(i, generate_input(i, {"randint", 2, 5}, 3))) {
    ASSERT_GE(x, 2);
    ASSERT_LE(x, 5);
    ASSERT_EQ(x, std::floor(x));
    ++seen[static_cast<size_t>(x - 2)];
  }
  for (int c : seen) EXPECT_GT(c, 1000);  // every value of the range occurs
}

TEST(InputGenerator, LargeBuffersAreFilledEverywhere) {
  auto b = buffer(DType::f32, (1 << 21) + 17);  // crosses the threaded path
  auto v = values(b, generate_input(b, {"uniform", 1.0, 2.0}, 9));
  for (double x : v) ASSERT_GE(x, 1.0);
}

TEST(InputGenerator, DefaultsDependOnDtype) {
  EXPECT_EQ(default_distribution(DType::f16).kind, "normal");
  EXPECT_EQ(default_distribution(DType::i64).kind, "randint");
  EXPECT_EQ(default_distribution(DType::boolean).b, 1);
}

TEST(InputGenerator, BadDistributionsAreErrors) {
  auto b = buffer(DType::f32, 4);
  EXPECT_THROW(generate_input(b, {"cauchy", 0, 1}, 1), UserError);
  EXPECT_THROW(generate_input(b, {"randint", 3.5, 3.7}, 1), UserError);
  EXPECT_THROW(generate_input(b, {"normal", 0, -1}, 1), UserError);
}

}  // namespace
}  // namespace cusched::runtime
