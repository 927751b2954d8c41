// The evaluator contract without MPI: results reach the caller in batch order
// whatever order they finish in, replayed timings replace measured ones, and the
// rank messages carry what verification found.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "search/evaluator.h"
#include "search/mpi_task_codec.h"

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
        batch[k].verdict = "ok";
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
  ev.evaluate(find_problem("relu"), cfg, batch, [&](size_t, CandidateOutcome& o) { seen.push_back(o.cost_estimate_ms); });
  EXPECT_EQ(seen, (std::vector<double>{2.5, 9, 0.125}));
}

TEST(TimingReplay, ReplacesTheGpuMedianAndItsShareOfTheFloor) {
  TimingReplay r = TimingReplay::from_json(nlohmann::json::parse(R"([{"schedule_hash": "h1", "ms": 0.04}])"));
  CandidateOutcome o;
  o.schedule_hash = "h1";
  o.verdict = "ok";
  o.gpu.emplace();
  o.gpu->median_ms = 0.5;
  o.gpu->floor_ms = 0.02;
  EXPECT_TRUE(r.apply("gpu", o));
  EXPECT_DOUBLE_EQ(o.gpu->median_ms, 0.04);
  EXPECT_DOUBLE_EQ(o.gpu->min_ms, 0.04);
  EXPECT_DOUBLE_EQ(o.gpu->pct_of_floor, 50.0);
  // Unverified outcomes and unknown hashes keep what they have.
  CandidateOutcome wrong = o;
  wrong.verdict = "wrong_output";
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
  ASSERT_EQ(prepared.verdict, "") << prepared.reason;
  ASSERT_FALSE(prepared.bundle.source.empty());
  cfg.backend = "gpu";
  cfg.size = "bench";
  cfg.seed = 42;
  cfg.strict = true;
  cfg.watchdog_s = 7;
  EvaluationTask t = decode_task(encode_task(9, "relu", cfg, prepared));
  EXPECT_EQ(t.id, 9);
  EXPECT_EQ(t.problem, "relu");
  EXPECT_EQ(t.config.backend, "gpu");
  EXPECT_EQ(t.config.size, "bench");
  EXPECT_EQ(t.config.seed, 42u);
  EXPECT_TRUE(t.config.strict);
  EXPECT_DOUBLE_EQ(t.config.watchdog_s, 7);
  EXPECT_EQ(t.prepared.steps, prepared.steps);
  EXPECT_EQ(t.prepared.schedule_hash, prepared.schedule_hash);
  EXPECT_EQ(t.prepared.bundle.source, prepared.bundle.source);
  EXPECT_EQ(t.prepared.bundle.to_json(), prepared.bundle.to_json());
  // The interpreter needs no bundle: it is not sent.
  cfg.backend = "interp";
  EXPECT_EQ(nlohmann::json::parse(encode_task(1, "relu", cfg, prepared)).count("bundle"), 0u);
}

TEST(MpiTaskCodec, ResultCarriesVerdictAndVerification) {
  CandidateOutcome verified;
  verified.verdict = "wrong_output";
  verified.reason = "Output Y differs.";
  verified.interp.emplace();
  verified.interp->verdict = "wrong_output";
  verified.interp->max_abs_err = 0.75;
  verified.interp->trials = 4;
  CandidateOutcome back;
  back.cost_estimate_ms = 3;  // rank 0's own estimate stays
  EXPECT_EQ(decode_result(encode_result(5, verified), back), 5);
  EXPECT_EQ(back.verdict, "wrong_output");
  EXPECT_EQ(back.reason, "Output Y differs.");
  ASSERT_TRUE(back.interp);
  EXPECT_DOUBLE_EQ(back.interp->max_abs_err, 0.75);
  EXPECT_EQ(back.interp->trials, 4);
  EXPECT_DOUBLE_EQ(back.cost_estimate_ms, 3);
  EXPECT_FALSE(back.gpu);

  verified.interp.reset();
  verified.verdict = "ok";
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
}

}  // namespace
}  // namespace cusched::search
