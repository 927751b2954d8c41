// The search loop in process: interpreter backend at the small size.
#include "search/loop.h"

#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dsl/error.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "scripted_server.h"
#include "search/builtin_proposer.h"
#include "search/candidate_evaluation.h"
#include "search/llm_proposer.h"
#include "search/store.h"
#include "tests/temp_store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

std::string loop_store(const std::string& name) { return test::fresh_store_path("loop", name); }

SearchOptions interp_options(int rounds, int ideas, int per_idea) {
  SearchOptions o;
  o.backend = "interp";
  o.rounds = rounds;
  o.ideas = ideas;
  o.per_idea = per_idea;
  o.audit = false;
  o.seed = 7;
  return o;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(SearchLoop, SoftmaxImprovesOnTheBaselineCostEstimate) {
  const Problem& p = find_problem("softmax");
  Store store(loop_store("softmax"));
  BuiltinProposerConfig bc;
  bc.seed = 7;
  BuiltinProposer proposer(p, bc);
  std::ostringstream log;
  SearchLoop loop(p, store, proposer, interp_options(3, 2, 4), log);
  SearchSummary s = loop.run();

  EXPECT_EQ(s.status, SearchStatus::finished);
  EXPECT_EQ(s.rounds_finished, 3);
  ASSERT_TRUE(s.baseline) << log.str();
  ASSERT_TRUE(s.best);
  EXPECT_LT(*s.best, *s.baseline) << log.str();

  // Candidate 0 of round 0 is the problem's baseline schedule.
  auto cands = store.candidates(s.run);
  ASSERT_FALSE(cands.empty());
  EXPECT_EQ(cands[0].round_index, 0);
  EXPECT_EQ(cands[0].schedule_hash, schedule_hash(validate_schedule(p.context("small"), p.baseline_schedule).steps));
  // Every candidate has an evaluation, once.
  std::set<int64_t> evaluated;
  for (const auto& e : store.evaluations(s.run)) EXPECT_TRUE(evaluated.insert(e.candidate).second);
  EXPECT_EQ(evaluated.size(), cands.size());
  EXPECT_TRUE(store.pending(s.run).empty());
  // Rounds after the first name their parents.
  int with_parent = 0;
  for (const auto& c : cands) with_parent += c.round_index > 0 && c.parent.has_value();
  EXPECT_GT(with_parent, 0);

  // One progress line per round; without a GPU each says the numbers are cost-model estimates.
  int progress = 0;
  for (const auto& l : lines_of(log.str()))
    if (l.rfind("round ", 0) == 0 && l.find("| verified") != std::string::npos) {
      ++progress;
      EXPECT_NE(l.find("(interp, cost model estimate)"), std::string::npos) << l;
      EXPECT_EQ(l.find("GPU median"), std::string::npos) << l;
    }
  EXPECT_EQ(progress, 3);
  EXPECT_EQ(store.find_run(s.run)->status, "finished");
}

TEST(SearchLoop, CandidateBudgetStopsTheRunAndLeavesTheRestPending) {
  const Problem& p = find_problem("relu");
  Store store(loop_store("budget"));
  BuiltinProposer proposer(p, {});
  std::ostringstream log;
  SearchOptions o = interp_options(3, 2, 4);
  o.budget_candidates = 5;
  SearchLoop loop(p, store, proposer, o, log);
  SearchSummary s = loop.run();
  EXPECT_EQ(s.status, SearchStatus::budget_spent);
  EXPECT_EQ(s.evaluated, 5);
  EXPECT_FALSE(store.pending(s.run).empty());
}

// Throws a UserError (and then a plain exception) on the rounds listed, else proposes
// the builtin proposer's round.
class FailingProposer : public Proposer {
 public:
  FailingProposer(const Problem& p, std::set<int> failing) : inner_(p, {}), failing_(std::move(failing)) {}
  std::string name() const override { return "builtin"; }
  RoundProposals propose(const ProposalContext& ctx, int ideas, int per_idea) override {
    ++calls;
    if (failing_.count(ctx.round)) {
      if (ctx.round % 2 == 0) fail("no-schedule", "no schedule could be drawn.", "Try another seed.");
      throw std::runtime_error("the proposer ran out of schedules");
    }
    return inner_.propose(ctx, ideas, per_idea);
  }
  int calls = 0;

 private:
  BuiltinProposer inner_;
  std::set<int> failing_;
};

TEST(SearchLoop, AProposerThatThrowsEndsItsRoundNotTheSearch) {
  const Problem& p = find_problem("relu");
  Store store(loop_store("failing"));
  FailingProposer proposer(p, {0, 1});
  std::ostringstream log;
  SearchSummary s = SearchLoop(p, store, proposer, interp_options(3, 2, 2), log).run();
  EXPECT_EQ(proposer.calls, 3);
  EXPECT_EQ(s.status, SearchStatus::finished) << log.str();
  EXPECT_EQ(s.rounds_finished, 3);
  // Round 0 still evaluated the baseline; round 2 proposed again after two failures.
  ASSERT_TRUE(s.baseline) << log.str();
  auto cands = store.candidates(s.run);
  int in_last = 0;
  for (const auto& c : cands) in_last += c.round_index == 2;
  EXPECT_GT(in_last, 0) << log.str();
  EXPECT_TRUE(store.pending(s.run).empty());
  // Each failure is in the log with its message.
  EXPECT_NE(log.str().find("proposer_failed"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("no schedule could be drawn"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("ran out of schedules"), std::string::npos) << log.str();
}

TEST(SearchLoop, LlmProposerRoundAgainstAScriptedServer) {
  using testing::completion;
  using testing::reply_with;
  const Problem& p = find_problem("softmax");
  testing::ScriptedServer server;
  nlohmann::json sched = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 128},
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"}
  ])");
  nlohmann::json bad = nlohmann::json::parse(R"([{"op": "split", "stage": "Y", "loop": "nope", "factor": 4}])");
  nlohmann::json impl = {{"proposals",
                          {{{"idea_index", 1}, {"based_on", 0}, {"schedule", sched}},
                           {{"idea_index", 1}, {"based_on", 0}, {"schedule", bad}}}}};
  server.script({reply_with(completion("{\"ideas\": [\"128 threads per block for Y\"]}", "stop", 1000, 50)),
                 reply_with(completion(impl.dump(), "stop", 1500, 300))});
  LlmConfig lc;
  lc.base_url = server.base_url();
  lc.model = "scripted";
  LlmClient client(lc);
  LlmProposer proposer(client);
  Store store(loop_store("llm"));
  std::ostringstream log;
  SearchLoop loop(p, store, proposer, interp_options(1, 1, 2), log);
  SearchSummary s = loop.run();
  EXPECT_EQ(s.rounds_finished, 1) << log.str();
  EXPECT_EQ(server.received().size(), 2u);
  auto calls = store.llm_calls(s.run);
  EXPECT_EQ(calls.size(), 2u);
  auto cands = store.candidates(s.run);
  ASSERT_EQ(cands.size(), 3u);  // baseline + two proposals
  EXPECT_EQ(cands[1].idea_text, "128 threads per block for Y");
  EXPECT_EQ(cands[1].idea_source, "llm");
  EXPECT_EQ(store.evaluation(cands[1].id)->verdict, "ok");
  EXPECT_EQ(store.evaluation(cands[2].id)->verdict, "invalid_schedule");
  EXPECT_EQ(store.candidate(cands[2].id)->status, "rejected");
  auto rounds = store.round_summaries(s.run);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0].round.prompt_tokens, 2500);
  EXPECT_EQ(rounds[0].round.completion_tokens, 350);
  EXPECT_NE(log.str().find("tokens 2850"), std::string::npos) << log.str();
}

}  // namespace
}  // namespace cusched::search

namespace cusched::search {
namespace {

// A cut from the search reaches the evaluation request with a single warm-up; without one
// the request keeps the full protocol.
TEST(SearchTimingCut, EvalConfigCutReachesTheRequest) {
  const Problem& p = find_problem("relu");
  KernelBundle bundle;
  EvalConfig cfg;
  cfg.size = "small";
  runtime::EvalRequest full = make_eval_request(p, bundle, cfg);
  EXPECT_EQ(full.timing.cut_ms, 0);
  EXPECT_EQ(full.timing.warmup, runtime::TimingConfig{}.warmup);
  cfg.cut_ms = 8;
  runtime::EvalRequest cut = make_eval_request(p, bundle, cfg);
  EXPECT_EQ(cut.timing.cut_ms, 8);
  EXPECT_EQ(cut.timing.warmup, 1);
  EXPECT_EQ(EvalConfig::from_json(cfg.to_json()).cut_ms, 8);
}

}  // namespace
}  // namespace cusched::search
