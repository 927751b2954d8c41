// The verdict builders shared by the host and the device checks: judge_output
// and judge_reference on hand-made statistics, and the multi-threaded host
// statistics on outputs large enough to span several chunks. No GPU needed.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/host_parallel.h"
#include "runtime/output_check.h"

namespace cusched::runtime {
namespace {

TEST(JudgeOutput, PoisonComesFirstAndHidesTheErrorStatistics) {
  OutputStats s;
  s.elements = 100;
  s.poisoned = 3;
  s.poisoned_first = 17;
  s.nonfinite = 5;  // poisoned NaN words would also read as non-finite
  s.max_abs_err = 9;
  OutputCheck c = judge_output("Y", s, Tolerance{});
  EXPECT_EQ(c.verdict, Verdict::unwritten_output);
  EXPECT_EQ(c.bad_elements, 3);
  EXPECT_EQ(c.first_bad_index, 17);
  EXPECT_EQ(c.max_abs_err, 0);
  EXPECT_EQ(c.message, "The candidate left 3 of 100 elements of 'Y' unwritten (first at index 17).");
}

TEST(JudgeOutput, PoisonIsIgnoredForOutputsZeroedBeforeLaunch) {
  OutputStats s;
  s.elements = 10;
  s.poison_checked = false;
  s.poisoned = 3;
  s.ref_sq = 1;
  EXPECT_EQ(judge_output("Y", s, Tolerance{}).verdict, Verdict::ok);
}

TEST(JudgeOutput, NanOrInfComesBeforeTolerance) {
  OutputStats s;
  s.elements = 50;
  s.nonfinite = 2;
  s.nonfinite_first = 4;
  s.outside = 7;
  s.outside_first = 1;
  s.max_abs_err = 0.5;
  s.diff_sq = 1;
  s.ref_sq = 4;
  OutputCheck c = judge_output("Y", s, Tolerance{});
  EXPECT_EQ(c.verdict, Verdict::nan_or_inf);
  EXPECT_EQ(c.first_bad_index, 4);
  EXPECT_EQ(c.bad_elements, 2);
  EXPECT_EQ(c.max_abs_err, 0.5);
  EXPECT_DOUBLE_EQ(c.rel_l2_err, 0.5);
  EXPECT_EQ(c.message, "The candidate wrote NaN or Inf into 2 of 50 elements of 'Y' (first at index 4).");
}

TEST(JudgeOutput, OutsideToleranceNamesTheWorstElement) {
  OutputStats s;
  s.elements = 1000;
  s.outside = 2;
  s.outside_first = 10;
  s.worst = 20;
  s.worst_candidate = 3.5;
  s.worst_reference = 1.25;
  s.ref_sq = 1;
  OutputCheck c = judge_output("Y", s, Tolerance{0.01, 0.02, 1});
  EXPECT_EQ(c.verdict, Verdict::wrong_output);
  EXPECT_EQ(c.first_bad_index, 10);
  EXPECT_EQ(c.bad_elements, 2);
  EXPECT_EQ(c.message,
            "Output 'Y' is outside atol 0.01 + rtol 0.02 x |reference| at 2 of 1000 elements "
            "(worst at index 20: 3.5 where the reference has 1.25).");
}

TEST(JudgeOutput, RelativeL2AloneFailsAndZeroReferenceNormIsInfinite) {
  OutputStats s;
  s.elements = 4;
  s.diff_sq = 1;
  s.ref_sq = 0;
  OutputCheck c = judge_output("Y", s, Tolerance{1, 1, 0.5});
  EXPECT_EQ(c.verdict, Verdict::wrong_output);
  EXPECT_TRUE(std::isinf(c.rel_l2_err));
  EXPECT_NE(c.message.find("relative L2 error of inf, above the limit 0.5"), std::string::npos) << c.message;
  s.ref_sq = 100;  // rel L2 0.1
  EXPECT_EQ(judge_output("Y", s, Tolerance{1, 1, 0.5}).verdict, Verdict::ok);
}

TEST(JudgeReference, NonFiniteAndConstantAndSingleZero) {
  ReferenceStats s;
  s.elements = 8;
  s.min = -1;
  s.max = 2;
  s.sum = 3;
  EXPECT_EQ(judge_reference("R", s).verdict, Verdict::ok);
  s.nonfinite_first = 5;
  s.nonfinite_value = INFINITY;
  OutputCheck c = judge_reference("R", s);
  EXPECT_EQ(c.verdict, Verdict::reference_degenerate);
  EXPECT_EQ(c.first_bad_index, 5);
  EXPECT_EQ(c.message, "The reference output 'R' holds inf at index 5, so it cannot judge the candidate.");
  s.nonfinite_first = -1;
  s.min = s.max = 4;
  s.sum = 32;
  c = judge_reference("R", s);
  EXPECT_EQ(c.verdict, Verdict::reference_degenerate);
  EXPECT_NE(c.message.find("is constant (4)"), std::string::npos) << c.message;
  ReferenceStats one;
  one.elements = 1;
  EXPECT_EQ(judge_reference("R", one).verdict, Verdict::reference_degenerate);
  one.min = one.max = one.sum = 2;
  EXPECT_EQ(judge_reference("R", one).verdict, Verdict::ok);
}

// A problem whose output is constant by construction: a constant reference is judged, a
// non-finite one is still refused.
TEST(JudgeReference, ConstantAllowedStillRefusesNonFinite) {
  ReferenceStats zeros;
  zeros.elements = 64;
  EXPECT_EQ(judge_reference("R", zeros).verdict, Verdict::reference_degenerate);
  EXPECT_EQ(judge_reference("R", zeros, true).verdict, Verdict::ok);
  ReferenceStats one;
  one.elements = 1;
  EXPECT_EQ(judge_reference("R", one, true).verdict, Verdict::ok);
  zeros.nonfinite_first = 3;
  zeros.nonfinite_value = NAN;
  EXPECT_EQ(judge_reference("R", zeros, true).verdict, Verdict::reference_degenerate);
}

// Outputs of several chunks: the chunked statistics give the answers of a plain loop.
TEST(HostStatistics, ChunkedStatisticsMatchTheWholeOutput) {
  const int64_t n = 3 * kHostChunkElements + 12345;
  std::vector<double> ref(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ref[static_cast<size_t>(i)] = std::sin(0.001 * static_cast<double>(i)) + 2.0;
  std::vector<float> cand(ref.begin(), ref.end());
  Tolerance tol{1e-3, 1e-3, 1e-2};
  EXPECT_EQ(check_output("Y", DType::f32, cand.data(), ref.data(), n, tol).verdict, Verdict::ok);

  // Two equally bad elements in different chunks (the first counts as worst) and a smaller one.
  const int64_t a = kHostChunkElements + 5, b = 2 * kHostChunkElements + 7, small = 9;
  cand[static_cast<size_t>(small)] += 0.5f;
  cand[static_cast<size_t>(a)] = static_cast<float>(ref[static_cast<size_t>(a)] + 2.0);
  cand[static_cast<size_t>(b)] = static_cast<float>(ref[static_cast<size_t>(b)] + 2.0);
  OutputStats s = output_stats(DType::f32, cand.data(), ref.data(), n, tol);
  EXPECT_EQ(s.outside, 3);
  EXPECT_EQ(s.outside_first, small);
  double da = std::fabs(static_cast<double>(cand[static_cast<size_t>(a)]) - ref[static_cast<size_t>(a)]);
  double db = std::fabs(static_cast<double>(cand[static_cast<size_t>(b)]) - ref[static_cast<size_t>(b)]);
  EXPECT_EQ(s.worst, db > da ? b : a);
  EXPECT_EQ(s.max_abs_err, std::max(da, db));

  cand[static_cast<size_t>(b)] = NAN;
  cand[static_cast<size_t>(n - 1)] = INFINITY;
  s = output_stats(DType::f32, cand.data(), ref.data(), n, tol);
  EXPECT_EQ(s.nonfinite, 2);
  EXPECT_EQ(s.nonfinite_first, b);

  fill_poison(DType::f32, &cand[static_cast<size_t>(n - 2)], 1);
  fill_poison(DType::f32, &cand[static_cast<size_t>(a + 1)], 1);
  OutputCheck c = check_output("Y", DType::f32, cand.data(), ref.data(), n, tol);
  EXPECT_EQ(c.verdict, Verdict::unwritten_output);
  EXPECT_EQ(c.bad_elements, 2);
  EXPECT_EQ(c.first_bad_index, a + 1);
}

TEST(HostStatistics, ReferenceStatisticsOverSeveralChunks) {
  const int64_t n = 2 * kHostChunkElements + 3;
  std::vector<double> ref(static_cast<size_t>(n), 1.0);
  ref[static_cast<size_t>(kHostChunkElements + 1)] = -5;
  ref[static_cast<size_t>(n - 1)] = 9;
  ReferenceStats s = reference_stats(ref.data(), n);
  EXPECT_EQ(s.min, -5);
  EXPECT_EQ(s.max, 9);
  EXPECT_EQ(s.sum, static_cast<double>(n - 2) + 4);
  EXPECT_EQ(s.nonfinite_first, -1);
  ref[static_cast<size_t>(2 * kHostChunkElements)] = NAN;
  ref[static_cast<size_t>(kHostChunkElements + 2)] = -INFINITY;
  s = reference_stats(ref.data(), n);
  EXPECT_EQ(s.nonfinite_first, kHostChunkElements + 2);
  EXPECT_TRUE(std::isinf(s.nonfinite_value));
}

TEST(HostParallel, EveryChunkRunsOnceAndErrorsPropagate) {
  const int64_t n = 10 * 1000 + 1;
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for_each_host_chunk(
      n,
      [&](int64_t, int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
      },
      1000);
  for (int v : seen) ASSERT_EQ(v, 1);
  EXPECT_EQ(host_chunk_count(n, 1000), 11);
  EXPECT_EQ(host_chunk_count(0, 1000), 0);
  EXPECT_THROW(for_each_host_chunk(
                   n,
                   [](int64_t c, int64_t, int64_t) {
                     if (c == 7) throw std::runtime_error("x");
                   },
                   1000),
               std::runtime_error);
}

}  // namespace
}  // namespace cusched::runtime
