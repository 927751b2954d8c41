#include <cmath>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {
namespace {

// A request with one kernel writing one output, its own reference.
EvalRequest one_kernel_request() {
  EvalRequest r;
  r.candidate.source = "extern \"C\" __global__ void k(float* c) {}";
  r.candidate.buffers.push_back({"C", DType::f32, {4, 8}, BufferRole::Output, false});
  r.candidate.launches.push_back({"k", {2, 1, 1}, {128, 1, 1}, 0, {"C"}});
  r.reference = r.candidate;
  return r;
}

TEST(EvaluationJson, RequestRoundTrips) {
  EvalRequest r = one_kernel_request();
  r.reference.buffers[0].dtype = DType::f64;
  InputSpec a;
  a.buffer = "A";
  a.standard = {"uniform", -1, 1};
  a.adversarial = Distribution{"normal", 1000, 0.01};
  r.inputs.push_back(a);
  r.tol = {1e-3, 2e-3, 3e-3};
  r.timing = {2, 40, false};
  r.floor = {1e9, 2e9, Precision::tf32};
  r.seeds = 5;
  r.base_seed = 1234567890123ULL;
  r.inputs_dir = "in";
  r.save_io_dir = "out";
  r.save_io_trials = 1;
  r.trial_limit = 2;
  r.watchdog_s = 7.5;
  r.device = 3;
  EvalRequest b = EvalRequest::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(b.to_json(), r.to_json());
  ASSERT_TRUE(b.inputs[0].adversarial.has_value());
  EXPECT_EQ(b.inputs[0].adversarial->a, 1000);
  EXPECT_EQ(b.reference.buffers[0].dtype, DType::f64);
  EXPECT_EQ(b.base_seed, 1234567890123ULL);
  EXPECT_EQ(b.save_io_trials, 1);
  EXPECT_EQ(b.trial_limit, 2);
}

TEST(EvaluationJson, TimingCutRoundTrips) {
  EvalRequest r = one_kernel_request();
  r.timing.cut_ms = 12.5;
  EXPECT_EQ(EvalRequest::from_json(nlohmann::json::parse(r.to_json().dump())).timing.cut_ms, 12.5);
  nlohmann::json j = r.to_json();
  j["timing"].erase("cut_ms");
  EXPECT_EQ(EvalRequest::from_json(j).timing.cut_ms, 0) << "a request without the field times fully";
  EvalResult e;
  e.timing_cut = true;
  EXPECT_TRUE(EvalResult::from_json(nlohmann::json::parse(e.to_json().dump())).timing_cut);
  EXPECT_FALSE(EvalResult::from_json(EvalResult{}.to_json()).timing_cut);
}

TEST(EvaluationJson, NumbersReadNullAsNanAndAbsenceAsToldOrAnError) {
  const nlohmann::json j = {{"x", 2.5}, {"n", nullptr}};
  EXPECT_EQ(json_number_or_nan(j, "x"), 2.5);
  EXPECT_TRUE(std::isnan(json_number_or_nan(j, "n")));
  EXPECT_TRUE(std::isnan(json_number_or_nan(j, "n", 0.0)));
  EXPECT_EQ(json_number_or_nan(j, "missing", 0.0), 0.0);
  EXPECT_THROW(json_number_or_nan(j, "missing"), nlohmann::json::out_of_range);
}

TEST(EvaluationJson, ResultRoundTripsWithNanErrors) {
  EvalResult r;
  r.verdict = Verdict::nan_or_inf;
  r.message = "The candidate wrote NaN.";
  r.max_abs_err = NAN;
  r.times_ms = {1.0, 2.0};
  r.trials = 2;
  EvalResult b = EvalResult::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(b.verdict, Verdict::nan_or_inf);
  EXPECT_EQ(b.message, r.message);
  EXPECT_TRUE(std::isnan(b.max_abs_err));
  EXPECT_EQ(b.times_ms, r.times_ms);
  EXPECT_EQ(b.trials, 2);
}

TEST(EvaluationJson, PhaseTimesAndCacheFieldsRoundTrip) {
  EvalResult r;
  r.verdict = Verdict::ok;
  r.phase_ms.compile = 1.5;
  r.phase_ms.generate = 2;
  r.phase_ms.upload = 3;
  r.phase_ms.candidate = 4;
  r.phase_ms.reference = 5;
  r.phase_ms.download = 6;
  r.phase_ms.check = 7;
  r.phase_ms.timing = 8;
  r.check_path = "device";
  r.trial_cache_hit = true;
  nlohmann::json j = nlohmann::json::parse(r.to_json().dump());
  EXPECT_EQ(j["phase_ms"]["check"], 7.0);
  EvalResult b = EvalResult::from_json(j);
  EXPECT_EQ(b.phase_ms.to_json(), r.phase_ms.to_json());
  EXPECT_EQ(b.check_path, "device");
  EXPECT_TRUE(b.trial_cache_hit);
  // A result written before these fields existed reads back with zeros.
  j.erase("phase_ms");
  j.erase("trial_cache_hit");
  EvalResult old = EvalResult::from_json(j);
  EXPECT_EQ(old.phase_ms.check, 0);
  EXPECT_FALSE(old.trial_cache_hit);
}

TEST(EvaluationJson, HostCheckFlagRoundTrips) {
  EvalRequest r;
  r.candidate.source = "extern \"C\" __global__ void k(float* c) {}";
  r.candidate.buffers.push_back({"C", DType::f32, {4}, BufferRole::Output, false});
  r.candidate.launches.push_back({"k", {1, 1, 1}, {4, 1, 1}, 0, {"C"}});
  r.reference = r.candidate;
  r.host_check = true;
  EXPECT_TRUE(EvalRequest::from_json(nlohmann::json::parse(r.to_json().dump())).host_check);
  nlohmann::json j = r.to_json();
  j.erase("host_check");
  EXPECT_FALSE(EvalRequest::from_json(j).host_check);
}

TEST(EvaluationJson, PerLaunchTimesRoundTrip) {
  EvalRequest q;
  q.candidate.source = "extern \"C\" __global__ void k(float* c) {}";
  q.candidate.buffers.push_back({"C", DType::f32, {4}, BufferRole::Output, false});
  q.candidate.launches.push_back({"k", {1, 1, 1}, {4, 1, 1}, 0, {"C"}});
  q.reference = q.candidate;
  q.time_each_launch = true;
  EXPECT_TRUE(EvalRequest::from_json(nlohmann::json::parse(q.to_json().dump())).time_each_launch);
  EvalResult r;
  r.verdict = Verdict::ok;
  r.launch_ms = {{"k0_stats", 0.061}, {"k1_norm", 0.142}};
  EvalResult back = EvalResult::from_json(nlohmann::json::parse(r.to_json().dump()));
  ASSERT_EQ(back.launch_ms.size(), 2u);
  EXPECT_EQ(back.launch_ms[1].first, "k1_norm");
  EXPECT_DOUBLE_EQ(back.launch_ms[0].second, 0.061);
  nlohmann::json j = r.to_json();
  j.erase("launch_ms");
  EXPECT_TRUE(EvalResult::from_json(j).launch_ms.empty());
}

TEST(EvaluationJson, VerdictNamesRoundTrip) {
  for (Verdict v :
       {Verdict::ok, Verdict::wrong_output, Verdict::unwritten_output, Verdict::nan_or_inf, Verdict::input_modified,
        Verdict::compile_error, Verdict::launch_error, Verdict::illegal_address, Verdict::timeout, Verdict::crashed,
        Verdict::under_floor, Verdict::reference_degenerate, Verdict::no_gpu, Verdict::internal_error})
    EXPECT_EQ(verdict_from_name(verdict_name(v)), v) << verdict_name(v);
  EXPECT_FALSE(verdict_from_name("fine").has_value());
}

TEST(EvaluationJson, MalformedRequestIsAnError) {
  try {
    EvalRequest::from_json({{"candidate", 3}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_TRUE(e.error().code == "bad-request" || e.error().code == "bad-bundle") << e.error().code;
  }
  EXPECT_THROW(EvalRequest::from_json(nlohmann::json::parse(
                   R"({"candidate": {"source": "", "buffers": [], "launches": []},
                       "reference": {"source": "", "buffers": [], "launches": []},
                       "inputs": [{"buffer": "A", "standard": {"kind": "zipf"}}]})")),
               UserError);
}

}  // namespace
}  // namespace cusched::runtime
