// A search stopped after a round and resumed proposes exactly what an uninterrupted
// search with the same seed proposes: each round depends only on the seed, the round
// index and the store.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "problems/problem.h"
#include "search/builtin_proposer.h"
#include "search/loop.h"
#include "search/store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

std::string fresh_db(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("cusched_resume_" + name + "_" + std::to_string(getpid()) + ".db");
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(p.string() + ext);
  return p.string();
}

SearchOptions options(int rounds) {
  SearchOptions o;
  o.backend = "interp";
  o.rounds = rounds;
  o.ideas = 3;
  o.per_idea = 4;
  o.audit = false;
  o.seed = 11;
  return o;
}

// (round index, schedule hash) of every candidate, in id order.
std::vector<std::pair<int, std::string>> proposals(const Store& store, int64_t run) {
  std::vector<std::pair<int, std::string>> out;
  for (const auto& c : store.candidates(run)) out.emplace_back(c.round_index, c.schedule_hash);
  return out;
}

TEST(Resume, StoppedAfterARoundAndResumedProposesTheUninterruptedRounds) {
  const Problem& p = find_problem("softmax");
  BuiltinProposerConfig bc;
  bc.seed = 11;
  std::ostringstream log;

  Store whole(fresh_db("whole"));
  BuiltinProposer straight(p, bc);
  SearchSummary a = SearchLoop(p, whole, straight, options(3), log).run();
  ASSERT_EQ(a.rounds_finished, 3) << log.str();

  Store split(fresh_db("split"));
  int64_t run = 0;
  {
    BuiltinProposer first(p, bc);  // the process that stops after round 0
    run = SearchLoop(p, split, first, options(1), log).run().run;
  }
  BuiltinProposer second(p, bc);  // a new process, with no memory of round 0
  SearchSummary b = SearchLoop(p, split, second, options(3), log).resume(run);
  ASSERT_EQ(b.rounds_finished, 3) << log.str();

  auto expected = proposals(whole, a.run), got = proposals(split, run);
  ASSERT_GT(expected.size(), 4u);
  EXPECT_EQ(got, expected) << log.str();
}

}  // namespace
}  // namespace cusched::search
