#include "runtime/output_check.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/element_codec.h"

namespace cusched::runtime {
namespace {

std::vector<double> ramp(int n) {
  std::vector<double> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = 0.5 * i - 3.0;
  return r;
}

std::vector<float> as_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

TEST(OutputCheck, MatchingOutputPasses) {
  auto ref = ramp(100);
  auto c = as_float(ref);
  OutputCheck r = check_output("C", DType::f32, c.data(), ref.data(), 100, Tolerance{});
  EXPECT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_EQ(r.max_abs_err, 0);
  EXPECT_EQ(r.bad_elements, 0);
}

TEST(OutputCheck, PoisonLeftInPlaceIsUnwritten) {
  auto ref = ramp(64);
  auto c = as_float(ref);
  fill_poison(DType::f32, &c[10], 1);
  fill_poison(DType::f32, &c[20], 1);
  OutputCheck r = check_output("C", DType::f32, c.data(), ref.data(), 64, Tolerance{});
  EXPECT_EQ(r.verdict, Verdict::unwritten_output);
  EXPECT_EQ(r.bad_elements, 2);
  EXPECT_EQ(r.first_bad_index, 10);
  EXPECT_NE(r.message.find("'C'"), std::string::npos);
}

TEST(OutputCheck, PoisonIsAlsoFoundInHalfAndDoubleAndBool) {
  for (DType t : {DType::f16, DType::bf16, DType::f64, DType::boolean, DType::i64}) {
    std::vector<uint8_t> c(8 * static_cast<size_t>(dtype_bytes(t)));
    std::vector<double> ref{0, 1, 0, 1, 0, 1, 0, 1};
    for (size_t i = 0; i < 8; ++i) store_element(t, ref[i], c.data() + i * static_cast<size_t>(dtype_bytes(t)));
    EXPECT_EQ(check_output("C", t, c.data(), ref.data(), 8, Tolerance{}).verdict, Verdict::ok) << dtype_name(t);
    fill_poison(t, c.data() + 5 * static_cast<size_t>(dtype_bytes(t)), 1);
    OutputCheck r = check_output("C", t, c.data(), ref.data(), 8, Tolerance{});
    EXPECT_EQ(r.verdict, Verdict::unwritten_output) << dtype_name(t);
    EXPECT_EQ(r.first_bad_index, 5) << dtype_name(t);
  }
}

TEST(OutputCheck, ZeroedOutputsAreNotCheckedForPoison) {
  auto ref = ramp(8);
  auto c = as_float(ref);
  fill_poison(DType::f32, &c[3], 1);  // a NaN bit pattern: caught as NaN instead
  EXPECT_EQ(check_output("C", DType::f32, c.data(), ref.data(), 8, Tolerance{}, false).verdict, Verdict::nan_or_inf);
}

TEST(OutputCheck, NanAndInfNeverPass) {
  auto ref = ramp(32);
  auto c = as_float(ref);
  c[7] = NAN;
  OutputCheck r = check_output("C", DType::f32, c.data(), ref.data(), 32, Tolerance{1e30, 1e30, 1e30});
  EXPECT_EQ(r.verdict, Verdict::nan_or_inf);
  EXPECT_EQ(r.first_bad_index, 7);
  c[7] = static_cast<float>(ref[7]);
  c[9] = -INFINITY;
  EXPECT_EQ(check_output("C", DType::f32, c.data(), ref.data(), 32, Tolerance{1e30, 1e30, 1e30}).verdict,
            Verdict::nan_or_inf);
}

TEST(OutputCheck, ElementOutsideAtolPlusRtolIsWrong) {
  std::vector<double> ref(10, 2.0);
  ref[0] = 1.0;
  auto c = as_float(ref);
  Tolerance tol{0.1, 0.1, 1.0};
  c[4] = 2.0f + 0.29f;  // within 0.1 + 0.1 * 2 = 0.3
  EXPECT_EQ(check_output("C", DType::f32, c.data(), ref.data(), 10, tol).verdict, Verdict::ok);
  c[4] = 2.0f + 0.31f;
  OutputCheck r = check_output("C", DType::f32, c.data(), ref.data(), 10, tol);
  EXPECT_EQ(r.verdict, Verdict::wrong_output);
  EXPECT_EQ(r.first_bad_index, 4);
  EXPECT_NEAR(r.max_abs_err, 0.31, 1e-6);
  EXPECT_NEAR(r.max_rel_err, 0.31 / 2.0, 1e-6);
}

TEST(OutputCheck, RelativeL2NormIsCheckedOnItsOwn) {
  std::vector<double> ref(100, 1.0);
  ref[0] = 2.0;
  std::vector<float> c(100, 1.5f);
  c[0] = 2.0f;
  Tolerance tol{1.0, 0.0, 0.1};  // every element is within atol 1, the L2 error is about 0.5
  OutputCheck r = check_output("C", DType::f32, c.data(), ref.data(), 100, tol);
  EXPECT_EQ(r.verdict, Verdict::wrong_output);
  EXPECT_EQ(r.bad_elements, 0);
  EXPECT_GT(r.rel_l2_err, 0.4);
  EXPECT_NE(r.message.find("relative L2"), std::string::npos);
}

TEST(OutputCheck, HalfPrecisionOutputsAreDecoded) {
  std::vector<double> ref{1.0, -2.5, 0.125, 3.0};
  std::vector<uint16_t> c;
  for (double v : ref) c.push_back(float_to_half_bits(static_cast<float>(v)));
  EXPECT_EQ(check_output("C", DType::f16, c.data(), ref.data(), 4, Tolerance{1e-6, 0, 1e-6}).verdict, Verdict::ok);
  c[2] = float_to_half_bits(0.5f);
  EXPECT_EQ(check_output("C", DType::f16, c.data(), ref.data(), 4, Tolerance{1e-6, 0, 1e-6}).verdict,
            Verdict::wrong_output);
}

TEST(ReferenceCheck, AllZerosOrConstantIsDegenerate) {
  std::vector<double> zeros(50, 0.0);
  EXPECT_EQ(check_reference("C", zeros.data(), 50).verdict, Verdict::reference_degenerate);
  std::vector<double> sevens(50, 7.0);
  OutputCheck r = check_reference("C", sevens.data(), 50);
  EXPECT_EQ(r.verdict, Verdict::reference_degenerate);
  EXPECT_NE(r.message.find("constant"), std::string::npos);
  sevens[3] = 7.0 + 1e-3;
  EXPECT_EQ(check_reference("C", sevens.data(), 50).verdict, Verdict::ok);
}

TEST(ReferenceCheck, NonFiniteReferenceIsDegenerate) {
  auto ref = ramp(10);
  ref[2] = NAN;
  EXPECT_EQ(check_reference("C", ref.data(), 10).verdict, Verdict::reference_degenerate);
}

TEST(ReferenceCheck, SingleElementIsDegenerateOnlyWhenZero) {
  double zero = 0, v = 4.5;
  EXPECT_EQ(check_reference("S", &zero, 1).verdict, Verdict::reference_degenerate);
  EXPECT_EQ(check_reference("S", &v, 1).verdict, Verdict::ok);
}

}  // namespace
}  // namespace cusched::runtime
