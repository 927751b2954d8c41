// A problem without schedules of its own: the search's first candidate and the built-in
// proposer's first idea are its automatic baseline, and the search verifies candidates.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "problems/automatic_baseline.h"
#include "problems/problem.h"
#include "search/builtin_proposer.h"
#include "search/loop.h"
#include "search/store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

Problem without_schedules(const std::string& name) {
  Problem p = find_problem(name);
  p.name = name + "_without_schedules";
  p.baseline_schedule = nlohmann::json::array();
  p.best_schedule = nlohmann::json::array();
  return p;
}

TEST(AutomaticStart, TheBuiltinProposerStartsFromTheAutomaticBaseline) {
  const Problem p = without_schedules("layernorm");
  BuiltinProposer proposer(p);
  ProposalContext ctx;
  RoundProposals r = proposer.propose(ctx, 3, 2);
  ASSERT_FALSE(r.proposals.empty());
  EXPECT_EQ(r.ideas[0], "start from the baseline schedule and single moves on it");
  const auto expected = validate_schedule(p.context("bench"), automatic_baseline(p.pipeline));
  ASSERT_TRUE(expected.ok) << expected.error.message;
  EXPECT_EQ(schedule_hash(r.proposals[0].schedule), schedule_hash(expected.steps));
}

TEST(AutomaticStart, TheSearchsFirstCandidateIsTheAutomaticBaselineAndItVerifies) {
  const Problem p = without_schedules("sum_dim1");
  fs::path db = fs::temp_directory_path() / ("cusched_automatic_start_" + std::to_string(getpid()) + ".db");
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db.string() + ext);
  Store store(db.string());
  BuiltinProposer proposer(p);
  SearchOptions o;
  o.backend = "interp";
  o.rounds = 1;
  o.ideas = 2;
  o.per_idea = 2;
  o.audit = false;
  std::ostringstream log;
  SearchSummary s = SearchLoop(p, store, proposer, o, log).run();
  auto cands = store.candidates(s.run);
  ASSERT_FALSE(cands.empty()) << log.str();
  EXPECT_EQ(cands[0].schedule_hash,
            schedule_hash(validate_schedule(p.context("small"), automatic_baseline(p.pipeline)).steps));
  ASSERT_TRUE(s.baseline) << "the automatic baseline did not verify\n" << log.str();
  EXPECT_GE(s.verified, 1);
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db.string() + ext);
}

}  // namespace
}  // namespace cusched::search
