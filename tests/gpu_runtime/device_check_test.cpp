// The device-side checks and the trial cache on a real GPU: the device
// statistics and verdicts equal the host's on crafted outputs, the
// input-unchanged comparison and the checksum find single-byte changes, and a
// repeated request is served from the trial cache with the same verdict.
// Every test skips without a CUDA driver.
#include "runtime/device_check.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/element_codec.h"
#include "runtime/evaluation.h"
#include "runtime/gpu_context.h"
#include "runtime/output_check.h"
#include "runtime/trial_cache.h"
#include "runtime/worker.h"

namespace cusched::runtime {
namespace {

class DeviceCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto e = driver_available()) GTEST_SKIP() << e->message;
    ctx_ = std::make_unique<GpuContext>(0);
    checker_ = std::make_unique<DeviceChecker>(*ctx_, 30);
  }
  void TearDown() override {
    checker_.reset();
    ctx_.reset();
  }

  static DeviceBuffer upload(const std::vector<uint8_t>& bytes) {
    DeviceBuffer b(bytes.size());
    b.upload(bytes);
    return b;
  }

  // Raw bytes of `values` stored as `t`.
  static std::vector<uint8_t> encode(DType t, const std::vector<double>& values) {
    std::vector<uint8_t> out(values.size() * static_cast<size_t>(dtype_bytes(t)));
    for (size_t i = 0; i < values.size(); ++i)
      store_element(t, values[i], out.data() + i * static_cast<size_t>(dtype_bytes(t)));
    return out;
  }

  // Sums agree up to their summation order; an overflow to infinity happens in both.
  static void expect_same_sum(double device, double host) {
    if (std::isinf(host)) {
      EXPECT_EQ(device, host);
    } else {
      EXPECT_NEAR(device, host, 1e-9 * host + 1e-300);
    }
  }

  // Checks that host and device agree on `cand` (raw, of `ct`) against `ref` (f64 values stored as `rt`).
  void expect_same(const std::string& what, DType ct, const std::vector<uint8_t>& cand, DType rt,
                   const std::vector<double>& ref_values, const Tolerance& tol, bool poisoned = true) {
    SCOPED_TRACE(what + " (" + dtype_name(ct) + " against " + dtype_name(rt) + ")");
    const int64_t n = static_cast<int64_t>(ref_values.size());
    std::vector<uint8_t> ref_raw = encode(rt, ref_values);
    std::vector<double> ref(ref_values.size());  // what the host sees after decoding the reference's dtype
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] = load_element(rt, ref_raw.data() + i * static_cast<size_t>(dtype_bytes(rt)));
    DeviceBuffer dc = upload(cand), dr = upload(ref_raw);

    ReferenceStats hr = reference_stats(ref.data(), n), dr_stats = checker_->reference_stats(dr.ptr(), rt, n);
    OutputCheck hrc = judge_reference("Y", hr), drc = judge_reference("Y", dr_stats);
    EXPECT_EQ(verdict_name(drc.verdict), verdict_name(hrc.verdict));
    EXPECT_EQ(drc.message, hrc.message);
    EXPECT_EQ(dr_stats.nonfinite_first, hr.nonfinite_first);
    if (hr.nonfinite_first < 0) {
      EXPECT_EQ(dr_stats.min, hr.min);
      EXPECT_EQ(dr_stats.max, hr.max);
      EXPECT_NEAR(dr_stats.sum, hr.sum, 1e-9 * (1 + std::fabs(hr.sum)));
    } else {
      return;  // an evaluation never compares outputs with a non-finite reference
    }

    OutputStats h = output_stats(ct, cand.data(), ref.data(), n, tol, poisoned);
    OutputStats d = checker_->output_stats(dc.ptr(), ct, dr.ptr(), rt, n, tol, poisoned);
    EXPECT_EQ(d.poisoned, h.poisoned);
    EXPECT_EQ(d.poisoned_first, h.poisoned_first);
    if (h.poisoned == 0) {
      EXPECT_EQ(d.nonfinite, h.nonfinite);
      EXPECT_EQ(d.nonfinite_first, h.nonfinite_first);
      EXPECT_EQ(d.outside, h.outside);
      EXPECT_EQ(d.outside_first, h.outside_first);
      EXPECT_EQ(d.worst, h.worst);
      EXPECT_EQ(d.worst_candidate, h.worst_candidate);
      EXPECT_EQ(d.worst_reference, h.worst_reference);
      EXPECT_EQ(d.max_abs_err, h.max_abs_err);
      EXPECT_EQ(d.max_rel_err, h.max_rel_err);
      expect_same_sum(d.diff_sq, h.diff_sq);
      expect_same_sum(d.ref_sq, h.ref_sq);
    }
    OutputCheck hc = judge_output("Y", h, tol), dcheck = judge_output("Y", d, tol);
    EXPECT_EQ(verdict_name(dcheck.verdict), verdict_name(hc.verdict));
    EXPECT_EQ(dcheck.bad_elements, hc.bad_elements);
    EXPECT_EQ(dcheck.first_bad_index, hc.first_bad_index);
    if (hc.verdict != Verdict::wrong_output || hc.bad_elements > 0) {
      EXPECT_EQ(dcheck.message, hc.message);  // a relative-L2 message prints a sum, which may differ in the last digit
    }
  }

  std::unique_ptr<GpuContext> ctx_;
  std::unique_ptr<DeviceChecker> checker_;
};

// More than one grid-stride pass, and not a multiple of the block size.
constexpr int64_t kElements = (int64_t{1} << 22) + 77;

std::vector<double> wave(int64_t n) {
  std::vector<double> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] = std::sin(0.001 * static_cast<double>(i)) * 3 + 0.5;
  return r;
}

TEST_F(DeviceCheckTest, CraftedOutputsGetTheHostsVerdictsAndStatistics) {
  const std::vector<double> ref = wave(kElements);
  const Tolerance tol{1e-3, 1e-3, 1e-3};
  for (DType ct : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    const size_t w = static_cast<size_t>(dtype_bytes(ct));
    const Tolerance t = (ct == DType::f16 || ct == DType::bf16) ? Tolerance{1e-2, 1e-2, 1e-2} : tol;
    const std::vector<uint8_t> good = encode(ct, ref);
    expect_same("all good", ct, good, DType::f64, ref, t);

    auto poisoned = good;
    fill_poison(ct, poisoned.data() + 1000 * w, 1);
    fill_poison(ct, poisoned.data() + static_cast<size_t>(kElements - 1) * w, 1);
    expect_same("poisoned element", ct, poisoned, DType::f64, ref, t);
    expect_same("poison in a zeroed output", ct, poisoned, DType::f64, ref, t, false);

    auto nan = good;
    store_element(ct, NAN, nan.data() + 4242 * w);
    store_element(ct, -INFINITY, nan.data() + 5000 * w);
    expect_same("NaN and Inf", ct, nan, DType::f64, ref, t);

    auto wrong = good;
    store_element(ct, ref[123457] + 1.0, wrong.data() + 123457 * w);
    expect_same("one wrong element", ct, wrong, DType::f64, ref, t);
    store_element(ct, ref[99] - 0.5, wrong.data() + 99 * w);
    store_element(ct, ref[3000000] + 1.0, wrong.data() + 3000000 * w);
    expect_same("three wrong elements", ct, wrong, DType::f64, ref, t);

    std::vector<double> shifted(ref);
    for (auto& v : shifted) v += 0.9 * (t.atol + t.rtol * std::fabs(v));  // each inside, the L2 norm outside
    expect_same("relative L2 only", ct, encode(ct, shifted), DType::f64, ref, Tolerance{t.atol, t.rtol, 1e-6});
  }
  // A reference in f32, and integer and bool candidates.
  expect_same("f32 reference", DType::f32, encode(DType::f32, ref), DType::f32, ref, tol);
  std::vector<double> ints(static_cast<size_t>(kElements));
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<double>(i % 1000) - 500;
  auto i32 = encode(DType::i32, ints);
  expect_same("i32 all good", DType::i32, i32, DType::f64, ints, Tolerance{0, 0, 0});
  store_element(DType::i32, 7, i32.data() + 4 * 77);
  expect_same("i32 one wrong", DType::i32, i32, DType::f64, ints, Tolerance{0, 0, 0});
  std::vector<double> bits(static_cast<size_t>(kElements));
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<double>((i * 7919) % 3 == 0);
  auto b8 = encode(DType::boolean, bits);
  expect_same("bool all good", DType::boolean, b8, DType::f64, bits, Tolerance{0, 0, 0});
  fill_poison(DType::boolean, b8.data() + 31, 1);
  expect_same("bool poisoned", DType::boolean, b8, DType::f64, bits, Tolerance{0, 0, 0});
}

TEST_F(DeviceCheckTest, DegenerateReferencesAreJudgedAlike) {
  const Tolerance tol{1e-3, 1e-3, 1e-3};
  std::vector<double> constant(static_cast<size_t>(kElements), 7.0);
  expect_same("constant reference", DType::f32, encode(DType::f32, constant), DType::f64, constant, tol);
  std::vector<double> zeros(static_cast<size_t>(kElements), 0.0);
  expect_same("zero reference", DType::f32, encode(DType::f32, zeros), DType::f64, zeros, tol);
  std::vector<double> holed = wave(kElements);
  holed[777777] = NAN;
  holed[888888] = INFINITY;
  expect_same("NaN in the reference", DType::f32, encode(DType::f32, wave(kElements)), DType::f64, holed, tol);
  std::vector<double> one{0.0};
  expect_same("single zero", DType::f32, encode(DType::f32, one), DType::f64, one, tol);
  one[0] = -2.5;
  expect_same("single value", DType::f32, encode(DType::f32, one), DType::f64, one, tol);
}

TEST_F(DeviceCheckTest, FirstDifferenceAndChecksumSeeOneByte) {
  for (size_t bytes : {size_t{1}, size_t{13}, size_t{4096}, size_t{(1 << 24) + 5}}) {
    SCOPED_TRACE(bytes);
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 131 + 7);
    DeviceBuffer a = upload(data), b = upload(data);
    EXPECT_EQ(checker_->first_difference(a.ptr(), b.ptr(), bytes), -1);
    const uint64_t sum = checker_->checksum(a.ptr(), bytes);
    EXPECT_EQ(checker_->checksum(b.ptr(), bytes), sum);
    for (size_t at : {bytes - 1, bytes / 2, size_t{0}}) {
      auto changed = data;
      changed[at] ^= 0x10;
      if (at + 3 < bytes) changed[at + 3] ^= 0x01;  // a later difference does not hide the first
      DeviceBuffer c = upload(changed);
      EXPECT_EQ(checker_->first_difference(a.ptr(), c.ptr(), bytes), static_cast<int64_t>(at));
      EXPECT_NE(checker_->checksum(c.ptr(), bytes), sum);
    }
    if (bytes >= 16) {  // two 8-byte words swapped
      auto swapped = data;
      for (size_t i = 0; i < 8; ++i) std::swap(swapped[i], swapped[8 + i]);
      DeviceBuffer s = upload(swapped);
      EXPECT_NE(checker_->checksum(s.ptr(), bytes), sum);
    }
  }
}

TEST_F(DeviceCheckTest, SealedTrialNoticesAChangedByte) {
  DeviceTrial t;
  t.inputs.emplace("X", upload(std::vector<uint8_t>(1000, 3)));
  t.reference_outputs.emplace("Y", upload(std::vector<uint8_t>(800, 9)));
  t.seal(*checker_);
  EXPECT_TRUE(t.intact(*checker_));
  check_cuda(driver().MemsetD8Async(t.reference_outputs.at("Y").ptr() + 799, 1, 1, ctx_->stream()), "memset");
  ctx_->wait(10, "memset");
  EXPECT_FALSE(t.intact(*checker_));
}

// ---- Whole evaluations.

constexpr int64_t kCheckElements = 1 << 22;

KernelBundle scale_add(const std::string& body) {
  KernelBundle b;
  b.problem = "scale_add";
  b.precision = Precision::f32;
  b.source =
      "extern \"C\" __global__ void k(const float* A, const float* B, float* C) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= " +
      std::to_string(kCheckElements) + "LL) return;\n  " + body + "\n}\n";
  b.buffers = {{"A", DType::f32, {kCheckElements}, BufferRole::Input, false},
               {"B", DType::f32, {kCheckElements}, BufferRole::Input, false},
               {"C", DType::f32, {kCheckElements}, BufferRole::Output, false}};
  b.launches = {{"k", {kCheckElements / 256, 1, 1}, {256, 1, 1}, 0, {"A", "B", "C"}}};
  return b;
}

KernelBundle scale_add_reference() {
  KernelBundle b;
  b.problem = "scale_add_reference";
  b.precision = Precision::f64;
  b.source =
      "extern \"C\" __global__ void r(const float* A, const float* B, double* C) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < " +
      std::to_string(kCheckElements) + "LL) C[i] = 2.0 * (double)A[i] + (double)B[i];\n}\n";
  b.buffers = {{"A", DType::f32, {kCheckElements}, BufferRole::Input, false},
               {"B", DType::f32, {kCheckElements}, BufferRole::Input, false},
               {"C", DType::f64, {kCheckElements}, BufferRole::Output, false}};
  b.launches = {{"r", {kCheckElements / 128, 1, 1}, {128, 1, 1}, 0, {"A", "B", "C"}}};
  return b;
}

EvalRequest scale_add_request(const std::string& body, uint64_t seed) {
  EvalRequest r;
  r.candidate = scale_add(body);
  r.reference = scale_add_reference();
  r.tol = {1e-5, 1e-5, 1e-6};
  r.inputs = {{"A", {"uniform", -1, 1}, Distribution{"normal", 100, 0.5}}};
  r.base_seed = seed;
  r.time_it = false;
  r.watchdog_s = 5;
  return r;
}

class TrialCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto e = driver_available()) GTEST_SKIP() << e->message;
  }
};

// A process whose memory share (CUSCHED_GPU_SHARE) cannot hold a trial keeps none between
// requests: the second evaluation regenerates its inputs and reruns the reference, with the
// same verdict; with the whole device again, the next one is kept and the one after it hits.
TEST_F(TrialCacheTest, AShareTooSmallForATrialKeepsNoneBetweenRequests) {
  EvalRequest req = scale_add_request("C[i] = 2.0f * A[i] + B[i];", 9301);
  ASSERT_EQ(setenv("CUSCHED_GPU_SHARE", "0.000001", 1), 0);
  EvalResult first = evaluate(req);
  EvalResult second = evaluate(req);
  ASSERT_EQ(unsetenv("CUSCHED_GPU_SHARE"), 0);
  ASSERT_EQ(first.verdict, Verdict::ok) << first.message;
  ASSERT_EQ(second.verdict, Verdict::ok) << second.message;
  EXPECT_EQ(second.check_path, "device");
  EXPECT_FALSE(second.trial_cache_hit);
  EXPECT_GT(second.phase_ms.reference, 0);
  EXPECT_EQ(second.max_abs_err, first.max_abs_err);

  EvalResult third = evaluate(req);
  EvalResult fourth = evaluate(req);
  ASSERT_EQ(fourth.verdict, Verdict::ok) << fourth.message;
  EXPECT_FALSE(third.trial_cache_hit);
  EXPECT_TRUE(fourth.trial_cache_hit);
}

TEST_F(TrialCacheTest, SecondEvaluationHitsTheCacheWithTheSameVerdict) {
  EvalRequest req = scale_add_request("C[i] = 2.0f * A[i] + B[i];", 9001);
  req.time_it = true;
  EvalResult first = evaluate(req);
  std::cout << "first: " << first.to_json().dump() << "\n";
  ASSERT_EQ(first.verdict, Verdict::ok) << first.message;
  EXPECT_EQ(first.check_path, "device");
  EXPECT_FALSE(first.trial_cache_hit);
  EXPECT_EQ(first.trials, 4);
  EXPECT_GT(first.phase_ms.generate, 0);
  EXPECT_GT(first.phase_ms.reference, 0);
  EXPECT_GT(first.phase_ms.timing, 0);

  EvalResult second = evaluate(req);
  std::cout << "second: " << second.to_json().dump() << "\n";
  ASSERT_EQ(second.verdict, Verdict::ok) << second.message;
  EXPECT_TRUE(second.trial_cache_hit);
  EXPECT_EQ(second.trials, first.trials);
  EXPECT_EQ(second.phase_ms.generate, 0);
  EXPECT_EQ(second.phase_ms.upload, 0);
  EXPECT_EQ(second.phase_ms.reference, 0);
  EXPECT_EQ(second.max_abs_err, first.max_abs_err);
  EXPECT_EQ(second.max_rel_err, first.max_rel_err);
  EXPECT_NEAR(second.rel_l2_err, first.rel_l2_err, 1e-12);
  EXPECT_EQ(second.times_ms.size(), first.times_ms.size());

  // Another seed is another key: a miss.
  EvalRequest other = scale_add_request("C[i] = 2.0f * A[i] + B[i];", 9002);
  EvalResult third = evaluate(other);
  EXPECT_EQ(third.verdict, Verdict::ok) << third.message;
  EXPECT_FALSE(third.trial_cache_hit);
}

// Faulty candidates checked on the device (the second of each pair from the
// cache) get the verdict and message of the host check.
TEST_F(TrialCacheTest, DeviceAndHostChecksAgreeOnFaultyCandidates) {
  struct Case {
    const char* name;
    const char* body;
    Verdict expected;
  };
  const Case cases[] = {
      {"correct", "C[i] = 2.0f * A[i] + B[i];", Verdict::ok},
      {"wrong element", "C[i] = 2.0f * A[i] + B[i] + (i == 31337 ? 1.0f : 0.0f);", Verdict::wrong_output},
      {"NaN", "C[i] = (i == 77) ? __int_as_float(0x7fc00000) : 2.0f * A[i] + B[i];", Verdict::nan_or_inf},
      {"unwritten", "if (i != 4095) C[i] = 2.0f * A[i] + B[i];", Verdict::unwritten_output},
      {"writes an input", "C[i] = 2.0f * A[i] + B[i]; if (i == 1234) ((float*)B)[i] = 5.0f;", Verdict::input_modified},
      {"fails only the adversarial trial", "C[i] = A[i] > 50.0f ? 0.0f : 2.0f * A[i] + B[i];", Verdict::wrong_output},
  };
  for (int round = 0; round < 2; ++round) {
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (round ? " (cached)" : ""));
      EvalRequest device_req = scale_add_request(c.body, 9100);
      EvalResult d = evaluate(device_req);
      EvalRequest host_req = device_req;
      host_req.host_check = true;
      EvalResult h = evaluate(host_req);
      EXPECT_EQ(d.check_path, "device");
      EXPECT_EQ(h.check_path, "host");
      EXPECT_EQ(verdict_name(d.verdict), verdict_name(c.expected)) << d.message;
      EXPECT_EQ(verdict_name(d.verdict), verdict_name(h.verdict));
      EXPECT_EQ(d.message, h.message);
      EXPECT_EQ(d.failed_trial, h.failed_trial);
      EXPECT_EQ(d.failed_buffer, h.failed_buffer);
      EXPECT_EQ(d.max_abs_err, h.max_abs_err);
      if (round == 1) {
        EXPECT_TRUE(d.trial_cache_hit);
      }
    }
  }
}

TEST_F(TrialCacheTest, DegenerateReferenceIsRejectedFromTheCacheToo) {
  EvalRequest req = scale_add_request("C[i] = 0.0f;", 9200);
  req.reference.source =
      "extern \"C\" __global__ void r(const float* A, const float* B, double* C) {\n"
      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < " +
      std::to_string(kCheckElements) + "LL) C[i] = 0.0;\n}\n";
  EvalResult first = evaluate(req);
  EvalResult second = evaluate(req);
  EXPECT_EQ(first.verdict, Verdict::reference_degenerate) << first.message;
  EXPECT_EQ(second.verdict, Verdict::reference_degenerate) << second.message;
  EXPECT_TRUE(second.trial_cache_hit);
  EXPECT_EQ(second.message, first.message);
}

TEST_F(TrialCacheTest, HostCheckIsChosenByTheEnvironment) {
  setenv("CUSCHED_HOST_CHECK", "1", 1);
  EvalResult r = evaluate(scale_add_request("C[i] = 2.0f * A[i] + B[i];", 9300));
  unsetenv("CUSCHED_HOST_CHECK");
  EXPECT_EQ(r.verdict, Verdict::ok) << r.message;
  EXPECT_EQ(r.check_path, "host");
  EXPECT_GT(r.phase_ms.download, 0);
}

TEST_F(TrialCacheTest, WorkerKeepsItsCacheUntilItIsReplaced) {
  Worker w(0);
  EvalRequest good = scale_add_request("C[i] = 2.0f * A[i] + B[i];", 9400);
  EvalResult a = w.evaluate(good);
  EvalResult b = w.evaluate(good);
  ASSERT_EQ(a.verdict, Verdict::ok) << a.message;
  ASSERT_EQ(b.verdict, Verdict::ok) << b.message;
  EXPECT_FALSE(a.trial_cache_hit);
  EXPECT_TRUE(b.trial_cache_hit);
  EXPECT_EQ(w.processes_started(), 1);

  EvalResult crash = w.evaluate(scale_add_request("C[i + (1LL << 38)] = A[i];", 9400));
  EXPECT_EQ(crash.verdict, Verdict::illegal_address) << crash.message;
  EvalResult after = w.evaluate(good);  // a fresh worker: its cache starts empty
  EXPECT_EQ(after.verdict, Verdict::ok) << after.message;
  EXPECT_FALSE(after.trial_cache_hit);
  // The fault came with the inputs mapped read-only, so the candidate ran once more with
  // writable inputs (faulting again) in a fresh worker; `after` started the third.
  EXPECT_EQ(w.processes_started(), 3);
}

}  // namespace
}  // namespace cusched::runtime
