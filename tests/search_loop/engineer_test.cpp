// The engineer's side of the search in process: goals, stall detection, steering read
// between rounds (hints, bans, restarts, added schedules), reviews and their tables.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dsl/error.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem.h"
#include "search/goal.h"
#include "search/llm_proposer.h"
#include "search/loop.h"
#include "search/review.h"
#include "search/run_outcome_store.h"
#include "search/stall.h"
#include "search/steering.h"
#include "search/store.h"
#include "tests/temp_store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string engineer_store(const std::string& name) { return test::fresh_store_path("engineer", name); }

std::string error_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.error().code;
  }
  return "";
}

TEST(Goal, ReadsTheThreeForms) {
  Goal t = Goal::parse("ms<=0.55");
  EXPECT_EQ(t.metric, GoalMetric::time_ms);
  EXPECT_DOUBLE_EQ(t.target, 0.55);
  Goal f = Goal::parse(" floor >= 90% ");
  EXPECT_EQ(f.metric, GoalMetric::floor_share);
  EXPECT_DOUBLE_EQ(f.target, 90);
  Goal s = Goal::parse("speedup>=1.4", 0.78);
  EXPECT_EQ(s.metric, GoalMetric::speedup);
  EXPECT_DOUBLE_EQ(*s.reference_ms, 0.78);
  EXPECT_EQ(Goal::from_json(s.to_json()).to_json(), s.to_json());
}

TEST(Goal, BadTextIsAStructuredErrorNamingTheForms) {
  for (const char* bad : {"fast", "ms<0.5", "ms<=", "ms<=-1", "floor>=90", "floor>=150%", "speedup>=x", ""}) {
    try {
      Goal::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UserError& e) {
      EXPECT_EQ(e.error().code, "bad-goal") << bad;
      EXPECT_NE(e.error().hint.find("ms<=T"), std::string::npos) << e.error().hint;
      EXPECT_NE(e.error().hint.find("floor>=P%"), std::string::npos);
      EXPECT_NE(e.error().hint.find("speedup>=F"), std::string::npos);
    }
  }
  EXPECT_EQ(error_code_of([] { Goal::parse("ms<=0.5", 0.7); }), "bad-goal");
}

TEST(Goal, StandingComparesTheBestWithTheTarget) {
  GoalInputs in{0.5, 80.0, 1.0};
  EXPECT_TRUE(goal_standing(Goal::parse("ms<=0.55"), in).met);
  EXPECT_FALSE(goal_standing(Goal::parse("ms<=0.45"), in).met);
  EXPECT_FALSE(goal_standing(Goal::parse("floor>=90%"), in).met);
  EXPECT_TRUE(goal_standing(Goal::parse("floor>=75%"), in).met);
  GoalStanding sp = goal_standing(Goal::parse("speedup>=1.9"), in);
  EXPECT_TRUE(sp.met);
  EXPECT_DOUBLE_EQ(*sp.value, 2.0);
  // Over a reference time instead of the baseline: 0.78 / 0.5 = 1.56.
  EXPECT_FALSE(goal_standing(Goal::parse("speedup>=1.6", 0.78), in).met);
  EXPECT_TRUE(goal_standing(Goal::parse("speedup>=1.5", 0.78), in).met);
  EXPECT_FALSE(goal_standing(Goal::parse("ms<=10"), GoalInputs{}).met);
}

RoundSummary round(int index, int candidates, int verified, std::optional<double> best_so_far) {
  RoundSummary r;
  r.round.index = index;
  r.round.finished = "2026-01-01T00:00:00.000Z";
  r.candidates = r.evaluated = candidates;
  r.verified = verified;
  r.best_so_far = best_so_far;
  return r;
}

TEST(Stall, NoGainAboveTheThresholdOverTheWindow) {
  std::vector<RoundSummary> rounds = {round(0, 4, 4, 10.0), round(1, 4, 4, 9.0), round(2, 4, 4, 8.95)};
  StallRule rule{2, 0.05};
  // Rounds 2 and 3 took the best from 10 to 8.95: 10.5%, above 5%.
  EXPECT_FALSE(detect_stall(rounds, rule).stalled);
  rounds.push_back(round(3, 4, 4, 8.9));
  // Rounds 3 and 4: from 9.0 to 8.9, 1.1%.
  StallFinding f = detect_stall(rounds, rule);
  EXPECT_TRUE(f.stalled);
  EXPECT_EQ(f.first_round, 2);
  EXPECT_EQ(f.last_round, 3);
  EXPECT_NE(f.reason.find("under the threshold"), std::string::npos) << f.reason;
  // Only rounds from index 3 on count: one round is not a window of two.
  EXPECT_FALSE(detect_stall(rounds, rule, 3).stalled);
  // An unfinished round is not looked at.
  rounds.back().round.finished.clear();
  EXPECT_FALSE(detect_stall(rounds, rule).stalled);
}

TEST(Stall, EveryCandidateRejectedOrNoCandidate) {
  std::vector<RoundSummary> rounds = {round(0, 3, 0, std::nullopt)};
  StallFinding f = detect_stall(rounds, {1, 0.01});
  EXPECT_TRUE(f.stalled);
  EXPECT_NE(f.reason.find("rejected"), std::string::npos) << f.reason;
  rounds = {round(0, 3, 3, 5.0), round(1, 0, 0, 5.0)};
  f = detect_stall(rounds, {1, 0.01});
  EXPECT_TRUE(f.stalled);
  EXPECT_NE(f.reason.find("no new candidate"), std::string::npos) << f.reason;
}

// Proposes two fixed ideas from the baseline and records what the loop showed it.
class RecordingProposer : public Proposer {
 public:
  explicit RecordingProposer(const Problem& p) : problem_(p) {}
  std::string name() const override { return "builtin"; }
  RoundProposals propose(const ProposalContext& ctx, int, int) override {
    contexts.push_back(ctx);
    RoundProposals out;
    json base = baseline_schedule_of(problem_);
    // Two variants of the baseline: the split factors halved, then quartered.
    for (int k : {1, 2}) {
      json s = base;
      for (auto& step : s)
        if (step.value("op", "") == "split" && step.value("factor", 0) == 64) step["factor"] = 64 >> (k + ctx.round);
      std::string idea = k == 1 ? "alpha: smaller blocks" : "beta: even smaller blocks";
      out.ideas.push_back(idea);
      out.proposals.push_back({idea, s, std::nullopt, k == 1 ? "retile" : "vectorize"});
    }
    return out;
  }
  std::vector<ProposalContext> contexts;

 private:
  const Problem& problem_;
};

SearchOptions engineer_options(int rounds) {
  SearchOptions o;
  o.backend = "interp";
  o.rounds = rounds;
  o.ideas = 2;
  o.per_idea = 1;
  o.audit = false;
  return o;
}

TEST(Steering, HintsBansAndRestartsReachTheNextRound) {
  const Problem& p = find_problem("softmax");
  std::string db = engineer_store("steer");
  int64_t run = 0, alpha = 0;
  {
    Store store(db);
    RecordingProposer proposer(p);
    std::ostringstream log;
    run = SearchLoop(p, store, proposer, engineer_options(1), log).run().run;
    for (const auto& c : store.candidates(run))
      if (c.idea_text.rfind("alpha", 0) == 0) alpha = c.id;
    ASSERT_NE(alpha, 0) << log.str();
    auto add = [&](SteeringKind k, const std::string& text, json payload = nullptr) {
      SteeringAction a;
      a.run = run;
      a.kind = k;
      a.text = text;
      a.payload = payload;
      a.author = "alice";
      add_steering(store, a);
    };
    add(SteeringKind::hint, "keep the row in registers");
    add(SteeringKind::ban_idea, "BETA");
    add(SteeringKind::ban_move, "retile");
    add(SteeringKind::restart_from, "candidate", {{"candidate", alpha}});
    add(SteeringKind::add_schedule, "the problem's best schedule",
        Schedule::from_json(p.context("small"), p.best_schedule).to_json());
    EXPECT_EQ(steering_actions(store, run).size(), 5u);
    for (const auto& a : steering_actions(store, run)) EXPECT_TRUE(a.pending());
  }
  Store store(db);
  RecordingProposer proposer(p);
  std::ostringstream log;
  SearchOptions o = engineer_options(2);
  SearchLoop(p, store, proposer, o, log).resume(run);
  ASSERT_EQ(proposer.contexts.size(), 1u) << log.str();
  const ProposalContext& ctx = proposer.contexts[0];
  ASSERT_EQ(ctx.hints.size(), 1u);
  EXPECT_EQ(ctx.hints[0], "keep the row in registers");
  EXPECT_EQ(ctx.banned_moves.count("retile"), 1u);
  ASSERT_FALSE(ctx.best.empty());
  EXPECT_EQ(ctx.best[0].candidate_id, alpha);  // not the best: the restart put it first
  // The hint reaches the LLM's prompt.
  EXPECT_NE(build_prompt_context(ctx, 100000).context.find("keep the row in registers"), std::string::npos);

  // Round 2: "alpha" was made by the banned move, "beta" is a banned idea; the added
  // schedule is the only new candidate.
  std::vector<CandidateRecord> second;
  for (const auto& c : store.candidates(run))
    if (c.round_index == 1) second.push_back(c);
  ASSERT_EQ(second.size(), 1u) << log.str();
  EXPECT_EQ(second[0].idea_text, "the problem's best schedule");
  EXPECT_EQ(second[0].idea_source, "file");
  for (const auto& a : steering_actions(store, run)) {
    ASSERT_FALSE(a.pending()) << steering_kind_name(a.kind);
    EXPECT_EQ(*a.applied_round, 1);
    EXPECT_EQ(a.author, "alice");
    EXPECT_FALSE(a.created.empty());
    if (a.kind == SteeringKind::add_schedule) {
      EXPECT_EQ(a.outcome, "candidate " + std::to_string(second[0].id));
    }
    if (a.kind == SteeringKind::ban_idea) {
      EXPECT_NE(a.outcome.find("2 proposal(s) dropped"), std::string::npos);
    }
  }
}

TEST(Steering, GoalMetStopsAndIsRecorded) {
  const Problem& p = find_problem("softmax");
  Store store(engineer_store("goal"));
  RecordingProposer proposer(p);
  std::ostringstream log;
  SearchOptions o = engineer_options(4);
  o.goal = Goal::parse("speedup>=0.5");  // the baseline itself meets it
  SearchSummary s = SearchLoop(p, store, proposer, o, log).run();
  EXPECT_EQ(s.status, SearchStatus::goal_met) << log.str();
  EXPECT_EQ(s.rounds_finished, 1);
  EXPECT_NE(log.str().find("goal met"), std::string::npos);
  auto g = find_goal(store, s.run);
  ASSERT_TRUE(g);
  EXPECT_EQ(*g->met_round, 0);
  EXPECT_EQ(*g->met_candidate, *s.best_candidate);
  EXPECT_FALSE(g->met_at.empty());
  EXPECT_EQ(store.find_run(s.run)->status, "goal-met");
}

TEST(Steering, StallStopsWithADiagnosisUnlessToldToContinue) {
  const Problem& p = find_problem("softmax");
  for (bool go_on : {false, true}) {
    Store store(engineer_store(go_on ? "stall_continue" : "stall"));
    RecordingProposer proposer(p);  // its variants are slower than the baseline: no gain
    std::ostringstream log;
    SearchOptions o = engineer_options(3);
    o.stall = {1, 0.01};
    o.continue_on_stall = go_on;
    SearchSummary s = SearchLoop(p, store, proposer, o, log).run();
    auto stalls = stalls_of_run(store, s.run);
    if (!go_on) {
      EXPECT_EQ(s.status, SearchStatus::stalled) << log.str();
      EXPECT_EQ(s.rounds_finished, 2);
      ASSERT_EQ(stalls.size(), 1u);
      const json& d = stalls[0].diagnosis;
      EXPECT_TRUE(d["best"]["floor"]["by_bytes_pct"].is_number()) << d.dump();
      EXPECT_TRUE(d["best"]["floor"]["by_flops_pct"].is_number());
      EXPECT_FALSE(d["best"]["resources"]["available"].get<bool>());
      EXPECT_GE(d["ideas"].size(), 2u);
      EXPECT_NE(log.str().find("resources: unavailable"), std::string::npos) << log.str();
      EXPECT_EQ(s.stall, d);
    } else {
      EXPECT_EQ(s.status, SearchStatus::finished) << log.str();
      EXPECT_EQ(s.rounds_finished, 3);
      // After the stall in round 2 the window starts again: round 3 alone, no gain either.
      EXPECT_EQ(stalls.size(), 2u);
      EXPECT_NE(log.str().find("--on-stall continue"), std::string::npos);
    }
  }
}

TEST(Review, LatestReviewIsTheCandidatesStanding) {
  const Problem& p = find_problem("softmax");
  Store store(engineer_store("review"));
  RecordingProposer proposer(p);
  std::ostringstream log;
  SearchSummary s = SearchLoop(p, store, proposer, engineer_options(1), log).run();
  int64_t c = *s.best_candidate;
  EXPECT_FALSE(latest_review(store, c));
  add_review(store, {0, c, false, "too slow", "bob", ""});
  add_review(store, {0, c, true, "fine after all", "carol", ""});
  auto r = latest_review(store, c);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->approved);
  EXPECT_EQ(r->reviewer, "carol");
  EXPECT_EQ(reviews_of_run(store, s.run).size(), 2u);
}

}  // namespace
}  // namespace cusched::search
