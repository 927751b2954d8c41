// The evaluator contract without MPI: results reach the caller in batch order
// whatever order they finish in, the backend picks this host's evaluator,
// replayed timings replace measured ones, and the rank messages carry every field
// of the configuration and the outcome.
#include "search/evaluator.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "problems/problem_file.h"
#include "search/host_evaluator.h"
#include "search/local_evaluator.h"
#include "search/mpi_task_codec.h"
#include "search/multi_gpu_evaluator.h"

namespace cusched::search {
namespace {

// Finishes the batch from the last outcome to the first, each on its own thread,
// giving outcome i the verdict "ok" and the reason "done i".
class ReversedEvaluator : public Evaluator {
 public:
  int alive() const override { return 1; }
  int total() const override { return 1; }

 protected:
  void run(const Problem&, const EvalConfig&, std::vector<CandidateOutcome>& batch,
           const std::function<void(size_t)>& finished) override {
    std::vector<std::thread> threads;
    for (size_t k = batch.size(); k-- > 0;) {
      threads.emplace_back([&, k] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5 * (batch.size() - k)));
        batch[k].verdict = cusched::runtime::Verdict::ok;
        batch[k].reason = "done " + std::to_string(k);
        finished(k);
      });
    }
    for (auto& t : threads) t.join();
  }
};

std::vector<CandidateOutcome> batch_of(const std::vector<std::string>& hashes) {
  std::vector<CandidateOutcome> batch(hashes.size());
  for (size_t i = 0; i < hashes.size(); ++i) batch[i].schedule_hash = hashes[i];
  return batch;
}

TEST(Evaluator, HandsResultsBackInBatchOrder) {
  ReversedEvaluator ev;
  auto batch = batch_of({"a", "b", "c", "d", "e"});
  std::vector<size_t> order;
  ev.evaluate(find_problem("relu"), EvalConfig{}, batch, [&](size_t i, CandidateOutcome& o) {
    EXPECT_EQ(o.reason, "done " + std::to_string(i));
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(Evaluator, ReplaysTheCostEstimateOfKnownSchedulesOnInterp) {
  ReversedEvaluator ev;
  ev.set_replay(std::make_shared<TimingReplay>(TimingReplay::from_json({{"a", 2.5}, {"c", 0.125}})));
  auto batch = batch_of({"a", "b", "c"});
  for (auto& o : batch) o.cost_estimate_ms = 9;
  EvalConfig cfg;
  cfg.backend = "interp";
  std::vector<double> seen;
  ev.evaluate(find_problem("relu"), cfg, batch,
              [&](size_t, CandidateOutcome& o) { seen.push_back(o.cost_estimate_ms); });
  EXPECT_EQ(seen, (std::vector<double>{2.5, 9, 0.125}));
}

TEST(HostEvaluator, InterpreterThreadsOrOneWorkerPerListedGpu) {
  SearchOptions options;
  options.backend = "interp";
  options.cpu_threads = 2;
  EXPECT_NE(dynamic_cast<LocalEvaluator*>(host_evaluator(options).get()), nullptr);
  options.backend = "gpu";
  options.devices = {0, 1, 2};
  auto gpus = host_evaluator(options);  // the workers start at the first batch
  ASSERT_NE(dynamic_cast<MultiGpuEvaluator*>(gpus.get()), nullptr);
  EXPECT_EQ(gpus->total(), 3);
  options.devices.clear();
  try {
    host_evaluator(options);
    FAIL() << "a GPU evaluator without devices was made";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "no-gpu-devices");
  }
}

TEST(TimingReplay, ReplacesTheGpuMedianAndItsShareOfTheFloor) {
  TimingReplay r = TimingReplay::from_json(nlohmann::json::parse(R"([{"schedule_hash": "h1", "ms": 0.04}])"));
  CandidateOutcome o;
  o.schedule_hash = "h1";
  o.verdict = cusched::runtime::Verdict::ok;
  o.gpu.emplace();
  o.gpu->median_ms = 0.5;
  o.gpu->floor_ms = 0.02;
  EXPECT_TRUE(r.apply("gpu", o));
  EXPECT_DOUBLE_EQ(o.gpu->median_ms, 0.04);
  EXPECT_DOUBLE_EQ(o.gpu->min_ms, 0.04);
  EXPECT_DOUBLE_EQ(o.gpu->pct_of_floor, 50.0);
  // Unverified outcomes and unknown hashes keep what they have.
  CandidateOutcome wrong = o;
  wrong.verdict = cusched::runtime::Verdict::wrong_output;
  wrong.gpu->median_ms = 0.5;
  EXPECT_FALSE(r.apply("gpu", wrong));
  EXPECT_DOUBLE_EQ(wrong.gpu->median_ms, 0.5);
  CandidateOutcome other = o;
  other.schedule_hash = "h2";
  other.gpu->median_ms = 0.5;
  EXPECT_FALSE(r.apply("gpu", other));
  EXPECT_DOUBLE_EQ(other.gpu->median_ms, 0.5);
}

TEST(TimingReplay, RejectsFilesThatAreNotTimings) {
  auto code_of = [](const nlohmann::json& j) {
    try {
      TimingReplay::from_json(j);
    } catch (const UserError& e) {
      return e.error().code;
    }
    return std::string("none");
  };
  EXPECT_EQ(code_of({{"h", -1}}), "replay-file-invalid");
  EXPECT_EQ(code_of({{"h", "fast"}}), "replay-file-invalid");
  EXPECT_EQ(code_of(nlohmann::json::array({{{"ms", 1}}})), "replay-file-invalid");
  EXPECT_EQ(code_of(3), "replay-file-invalid");
  try {
    TimingReplay::load("/nonexistent/timings.json");
    FAIL() << "a missing file loaded";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "replay-file-unreadable");
  }
}

TEST(MpiTaskCodec, TaskCarriesScheduleConfigAndBundle) {
  const Problem& relu = find_problem("relu");
  EvalConfig cfg;
  cfg.audit = false;
  cfg.size = "small";
  CandidateOutcome prepared = prepare_candidate(relu, relu.baseline_schedule, cfg);
  ASSERT_FALSE(prepared.verdict.has_value()) << prepared.reason;
  ASSERT_FALSE(prepared.bundle.source.empty());
  cfg.backend = "gpu";
  cfg.size = "bench";
  cfg.seed = 42;
  cfg.strict = true;
  cfg.watchdog_s = 7;
  EvaluationTask t = decode_task(encode_task(9, relu, cfg, prepared));
  EXPECT_EQ(t.id, 9);
  EXPECT_EQ(t.problem, "relu");
  EXPECT_EQ(t.definition, problem_to_json(relu));
  EXPECT_EQ(t.config.backend, "gpu");
  EXPECT_EQ(t.config.size, "bench");
  EXPECT_EQ(t.config.seed, 42u);
  EXPECT_TRUE(t.config.strict);
  EXPECT_DOUBLE_EQ(t.config.watchdog_s, 7);
  EXPECT_EQ(t.prepared.steps, prepared.steps);
  EXPECT_EQ(t.prepared.schedule_hash, prepared.schedule_hash);
  EXPECT_EQ(t.prepared.bundle.source, prepared.bundle.source);
  EXPECT_EQ(t.prepared.bundle.to_json(), prepared.bundle.to_json());
}

TEST(MpiTaskCodec, ResultCarriesVerdictAndVerification) {
  CandidateOutcome verified;
  verified.verdict = cusched::runtime::Verdict::wrong_output;
  verified.reason = "Output Y differs.";
  verified.interp.emplace();
  verified.interp->verdict = cusched::runtime::Verdict::wrong_output;
  verified.interp->max_abs_err = 0.75;
  verified.interp->trials = 4;
  CandidateOutcome back;
  back.cost_estimate_ms = 3;
  back.gpu.emplace();
  EXPECT_EQ(decode_result(encode_result(5, verified), back), 5);
  EXPECT_EQ(back.verdict_text(), "wrong_output");
  EXPECT_EQ(back.reason, "Output Y differs.");
  ASSERT_TRUE(back.interp);
  EXPECT_DOUBLE_EQ(back.interp->max_abs_err, 0.75);
  EXPECT_EQ(back.interp->trials, 4);
  // The rank's outcome replaces what was there.
  EXPECT_DOUBLE_EQ(back.cost_estimate_ms, 0);
  EXPECT_FALSE(back.gpu);

  verified.interp.reset();
  verified.verdict = cusched::runtime::Verdict::ok;
  verified.gpu.emplace();
  verified.gpu->verdict = runtime::Verdict::ok;
  verified.gpu->median_ms = 0.031;
  CandidateOutcome gpu_back;
  decode_result(encode_result(6, verified), gpu_back);
  ASSERT_TRUE(gpu_back.gpu);
  EXPECT_DOUBLE_EQ(gpu_back.gpu->median_ms, 0.031);

  try {
    decode_result("{\"verdict\": \"ok\"}", gpu_back);
    FAIL() << "a result without a task id was read";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "bad-result-message");
  }
  try {
    decode_result("{\"task\": 7, \"outcome\": {\"verdict\": \"ok\"}}", gpu_back);
    FAIL() << "a result without the outcome's fields was read";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "bad-result-message");
  }
  // A result that cannot be read leaves the outcome as it was.
  EXPECT_DOUBLE_EQ(gpu_back.gpu->median_ms, 0.031);
}

// An EvalConfig with no field at its default.
EvalConfig config_with_every_field() {
  EvalConfig c;
  c.backend = "interp";
  c.size = "small";
  c.seed = 18446744073709551557u;  // above the int64 range
  c.strict = true;
  c.time_it = false;
  c.inputs_dir = "/data/in";
  c.save_io_dir = "/data/io";
  c.save_io_trials = 2;
  c.time_each_launch = true;
  c.watchdog_s = 3.25;
  c.audit = false;
  c.check_bench = false;
  return c;
}

void expect_same_config(const EvalConfig& a, const EvalConfig& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.strict, b.strict);
  EXPECT_EQ(a.time_it, b.time_it);
  EXPECT_EQ(a.inputs_dir, b.inputs_dir);
  EXPECT_EQ(a.save_io_dir, b.save_io_dir);
  EXPECT_EQ(a.save_io_trials, b.save_io_trials);
  EXPECT_EQ(a.time_each_launch, b.time_each_launch);
  EXPECT_EQ(a.watchdog_s, b.watchdog_s);
  EXPECT_EQ(a.audit, b.audit);
  EXPECT_EQ(a.check_bench, b.check_bench);
}

Error error_with_every_field(const std::string& code) {
  return Error{4, "split", code, "The factor does not divide the extent.", "Pick a divisor of the extent.", "schedule"};
}

// A CandidateOutcome with no field at its default, gpu and interp included
// (interp's error is kept for its "rejected" verdict only).
CandidateOutcome outcome_with_every_field() {
  const Problem& relu = find_problem("relu");
  EvalConfig cfg;
  cfg.audit = false;
  cfg.size = "small";
  CandidateOutcome o = prepare_candidate(relu, relu.baseline_schedule, cfg);
  o.verdict = cusched::runtime::Verdict::wrong_output;
  o.reason = "Output Y differs at (3, 1).";
  o.error = error_with_every_field("bad-factor");
  o.schedule_hash = "h-every-field";
  o.ir_text = "kernel relu_0 { }";
  o.bundle.headers["extra.cuh"] = "#pragma once\n";
  o.audit_findings = nlohmann::json::array({{{"severity", "warning"}, {"rule", "unused-shared"}}});
  o.audit_ms = 12.5;
  o.cost_estimate_ms = 0.1 + 0.2;  // not exact in binary: must come back bit for bit
  o.precision = Precision::tf32;
  runtime::EvalResult g;
  g.verdict = runtime::Verdict::wrong_output;
  g.message = "Y[3] is 2, expected 1.";
  g.failed_buffer = "Y";
  g.failed_trial = 2;
  g.max_abs_err = 1;
  g.max_rel_err = 0.5;
  g.rel_l2_err = 0.25;
  g.trials = 3;
  g.times_ms = {0.5, 0.25};
  g.median_ms = 0.375;
  g.min_ms = 0.25;
  g.max_ms = 0.5;
  g.floor_ms = 0.125;
  g.pct_of_floor = 33.3;
  g.copy_bandwidth_gbs = 4000;
  g.read_bandwidth_gbs = 4500;
  g.compile_report = {{"candidate", {{"registers", 32}}}};
  g.precision = Precision::tf32;
  g.device_name = "NVIDIA H200";
  g.phase_ms = {1, 2, 3, 4, 5, 6, 7, 8};
  g.check_path = "device";
  g.trial_cache_hit = true;
  g.launch_ms = {{"relu_0", 0.125}};
  o.gpu = g;
  runtime::InterpVerification v;
  v.verdict = cusched::runtime::Verdict::rejected;
  v.message = "The interpreter rejected the program.";
  v.error = error_with_every_field("interp-failed");
  v.max_abs_err = 0.5;
  v.max_rel_err = 0.75;
  v.rel_l2_err = 0.125;
  v.trials = 5;
  o.interp = v;
  return o;
}

void expect_same_error(const Error& a, const Error& b) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.hint, b.hint);
  EXPECT_EQ(a.phase, b.phase);
}

void expect_same_outcome(const CandidateOutcome& a, const CandidateOutcome& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.reason, b.reason);
  expect_same_error(a.error, b.error);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.schedule_hash, b.schedule_hash);
  EXPECT_EQ(a.ir_text, b.ir_text);
  EXPECT_EQ(a.bundle.to_json(), b.bundle.to_json());
  EXPECT_EQ(a.audit_findings, b.audit_findings);
  EXPECT_EQ(a.audit_ms, b.audit_ms);
  EXPECT_EQ(a.cost_estimate_ms, b.cost_estimate_ms);
  EXPECT_EQ(a.precision, b.precision);
  ASSERT_EQ(a.gpu.has_value(), b.gpu.has_value());
  if (a.gpu) {
    const runtime::EvalResult &g = *a.gpu, &h = *b.gpu;
    EXPECT_EQ(g.verdict, h.verdict);
    EXPECT_EQ(g.message, h.message);
    EXPECT_EQ(g.failed_buffer, h.failed_buffer);
    EXPECT_EQ(g.failed_trial, h.failed_trial);
    EXPECT_EQ(g.max_abs_err, h.max_abs_err);
    EXPECT_EQ(g.max_rel_err, h.max_rel_err);
    EXPECT_EQ(g.rel_l2_err, h.rel_l2_err);
    EXPECT_EQ(g.trials, h.trials);
    EXPECT_EQ(g.times_ms, h.times_ms);
    EXPECT_EQ(g.median_ms, h.median_ms);
    EXPECT_EQ(g.min_ms, h.min_ms);
    EXPECT_EQ(g.max_ms, h.max_ms);
    EXPECT_EQ(g.floor_ms, h.floor_ms);
    EXPECT_EQ(g.pct_of_floor, h.pct_of_floor);
    EXPECT_EQ(g.copy_bandwidth_gbs, h.copy_bandwidth_gbs);
    EXPECT_EQ(g.read_bandwidth_gbs, h.read_bandwidth_gbs);
    EXPECT_EQ(g.compile_report, h.compile_report);
    EXPECT_EQ(g.precision, h.precision);
    EXPECT_EQ(g.device_name, h.device_name);
    EXPECT_EQ(g.phase_ms.compile, h.phase_ms.compile);
    EXPECT_EQ(g.phase_ms.generate, h.phase_ms.generate);
    EXPECT_EQ(g.phase_ms.upload, h.phase_ms.upload);
    EXPECT_EQ(g.phase_ms.candidate, h.phase_ms.candidate);
    EXPECT_EQ(g.phase_ms.reference, h.phase_ms.reference);
    EXPECT_EQ(g.phase_ms.download, h.phase_ms.download);
    EXPECT_EQ(g.phase_ms.check, h.phase_ms.check);
    EXPECT_EQ(g.phase_ms.timing, h.phase_ms.timing);
    EXPECT_EQ(g.check_path, h.check_path);
    EXPECT_EQ(g.trial_cache_hit, h.trial_cache_hit);
    EXPECT_EQ(g.launch_ms, h.launch_ms);
  }
  ASSERT_EQ(a.interp.has_value(), b.interp.has_value());
  if (a.interp) {
    EXPECT_EQ(a.interp->verdict, b.interp->verdict);
    EXPECT_EQ(a.interp->message, b.interp->message);
    expect_same_error(a.interp->error, b.interp->error);
    EXPECT_EQ(a.interp->max_abs_err, b.interp->max_abs_err);
    EXPECT_EQ(a.interp->max_rel_err, b.interp->max_rel_err);
    EXPECT_EQ(a.interp->rel_l2_err, b.interp->rel_l2_err);
    EXPECT_EQ(a.interp->trials, b.interp->trials);
  }
}

TEST(MpiTaskCodec, TaskCarriesEveryFieldOfTheConfigAndTheOutcome) {
  const EvalConfig cfg = config_with_every_field();
  const CandidateOutcome prepared = outcome_with_every_field();
  ASSERT_FALSE(prepared.bundle.source.empty());
  EvaluationTask t = decode_task(encode_task(11, find_problem("relu"), cfg, prepared));
  EXPECT_EQ(t.id, 11);
  EXPECT_EQ(t.problem, "relu");
  expect_same_config(t.config, cfg);
  expect_same_outcome(t.prepared, prepared);
}

TEST(MpiTaskCodec, ResultCarriesEveryFieldOfTheOutcome) {
  const CandidateOutcome verified = outcome_with_every_field();
  CandidateOutcome back;
  EXPECT_EQ(decode_result(encode_result(12, verified), back), 12);
  expect_same_outcome(back, verified);
}

TEST(MpiTaskCodec, AnOutcomeWithoutBundleOrVerificationComesBackEmpty) {
  CandidateOutcome rejected;
  rejected.verdict = cusched::runtime::Verdict::internal_error;
  rejected.reason = "Rank 2 could not evaluate the candidate.";
  CandidateOutcome back = outcome_with_every_field();
  EXPECT_EQ(decode_result(encode_result(13, rejected), back), 13);
  expect_same_outcome(back, rejected);
}

}  // namespace
}  // namespace cusched::search
