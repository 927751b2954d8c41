// A scripted engineer, as a person uses the command line: starts a search with a goal,
// watches it with `status` while it writes, sees it stall (exit code 6), steers it (adds
// a schedule and a hint), resumes it, sees the goal met (exit 0), reviews the winner
// and exports it with --require-approved. The store and the report show every step.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "search/review.h"
#include "search/run_outcome_store.h"
#include "search/steering.h"
#include "search/store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out, err;
};

class Engineer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cusched_engineer_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "run.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  Result run(const std::string& args, const std::string& env = "") {
    fs::path out = dir_ / "out.txt", err = dir_ / "err.txt";
    std::string cmd = env + " '" + CUSCHED_BIN + "' " + args + " > '" + out.string() + "' 2> '" + err.string() + "'";
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(out), read(err)};
  }
  json run_json(const std::string& args, int expect_code = 0) {
    Result r = run(args);
    EXPECT_EQ(r.code, expect_code) << args << "\n" << r.out << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << args << ": stdout is not JSON: " << r.out << r.err;
    return j;
  }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  fs::path dir_;
  std::string db_;
};

// The baseline's steps with every split factor of 64 replaced.
json with_factor(const json& steps, int factor) {
  json s = steps;
  for (auto& step : s)
    if (step.value("op", "") == "split" && step.value("factor", 0) == 64) step["factor"] = factor;
  return s;
}

TEST_F(Engineer, GoalStallSteerResumeReviewExport) {
  json baseline = run_json("validate -p softmax --schedule baseline")["steps"];
  json best = run_json("validate -p softmax --schedule best")["steps"];
  ASSERT_TRUE(baseline.is_array() && best.is_array());
  // The proposer's two schedules are slower than the baseline: round 2 gains nothing.
  fs::path proposals =
      write("proposals.jsonl",
            json({{"idea", "smaller blocks"}, {"schedule", with_factor(baseline, 32)}}).dump() + "\n" +
                json({{"idea", "even smaller blocks"}, {"schedule", with_factor(baseline, 16)}}).dump() + "\n");
  const std::string search = "search -p softmax --backend interp --no-audit --proposer file --proposals '" +
                             proposals.string() + "' --ideas 1 --per-idea 1 --db '" + db_ + "'";

  // 1. Start with a goal, and watch with `status` while it runs.
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "'" + std::string(CUSCHED_BIN) + "' " + search +
                      " --rounds 6 --goal 'speedup>=100' --stall-rounds 1 --stall-threshold 1 > '" +
                      (dir_ / "search1.txt").string() + "' 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0, polls = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    Result r = run("status '" + db_ + "' --json");
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "status printed no JSON while the search ran: " << r.out << r.err;
    // Before the search has made its store or its run, status says so in a structured error.
    if (r.code == 0)
      EXPECT_TRUE(j.contains("round") && j.contains("evaluated") && j.contains("sparkline")) << r.out;
    else
      EXPECT_TRUE(j["error"].contains("hint")) << r.out;
    ++polls;
    usleep(20000);
  }
  std::string log1 = read(dir_ / "search1.txt");
  ASSERT_TRUE(WIFEXITED(status));
  // 2. It stalls: exit code 6, with a diagnosis a person can act on.
  EXPECT_EQ(WEXITSTATUS(status), 6) << log1;
  EXPECT_NE(log1.find("goal: a speedup of at least 100x over the baseline candidate"), std::string::npos) << log1;
  EXPECT_NE(log1.find("stalled: The best time gained 0.00% over round 2"), std::string::npos) << log1;
  EXPECT_NE(log1.find("by bytes"), std::string::npos) << log1;
  EXPECT_NE(log1.find("resources: unavailable"), std::string::npos) << log1;
  EXPECT_NE(log1.find("ideas tried"), std::string::npos) << log1;

  json st = run_json("status '" + db_ + "' --json");
  EXPECT_EQ(st["status"], "stalled");
  EXPECT_EQ(st["rounds_finished"], 2);
  EXPECT_EQ(st["evaluated"], 3);
  EXPECT_EQ(st["goal"]["met"], false);
  EXPECT_EQ(st["last_stall"]["round"], 2);
  EXPECT_EQ(st["curve"].size(), 2u);
  // --watch on a stopped run prints once and returns.
  Result watch = run("status '" + db_ + "' --watch --interval 0.1");
  EXPECT_EQ(watch.code, 0) << watch.err;
  EXPECT_NE(watch.out.find("stalled in round 2"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("goal speedup>=100: not met yet"), std::string::npos) << watch.out;

  // 3. Steer: the schedule the engineer knows, and a hint.
  fs::path fast = write("fast.json", best.dump());
  json added = run_json("steer '" + db_ + "' --add '" + fast.string() +
                        "' --idea 'one block per row, reductions across the block' --author alice --json");
  ASSERT_EQ(added["added"].size(), 1u) << added.dump();
  EXPECT_EQ(added["added"][0]["kind"], "add-schedule");
  EXPECT_EQ(added["added"][0]["pending"], true);
  // Without --author the author is $USER.
  Result hinted = run("steer '" + db_ + "' --hint 'keep each row in registers' --json", "USER=carol");
  EXPECT_EQ(hinted.code, 0) << hinted.out << hinted.err;
  json hint = json::parse(hinted.out, nullptr, false);
  ASSERT_FALSE(hint.is_discarded()) << hinted.out;
  EXPECT_EQ(hint["added"][0]["author"], "carol") << hint.dump();
  // A bad steering action is a structured error and stores nothing.
  json bad = run_json("steer '" + db_ + "' --ban-move no_such_move --author alice", 2);
  EXPECT_EQ(bad["error"]["code"], "unknown-move");
  EXPECT_EQ(run_json("status '" + db_ + "' --json")["steering"]["pending"], 2);

  // Nothing is approved yet: export --require-approved refuses.
  Result refused = run("export '" + db_ + "' --require-approved -o '" + (dir_ / "k.cu").string() + "'");
  EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.out.find("export-not-approved"), std::string::npos) << refused.out;

  // 4. Resume: the pending steering is applied, the added schedule meets the goal.
  Result resumed = run(search + " --resume");
  EXPECT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find("applied 2 steering action(s)"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("goal met: speedup>=100"), std::string::npos) << resumed.out;
  st = run_json("status '" + db_ + "' --json");
  EXPECT_EQ(st["status"], "goal-met");
  EXPECT_EQ(st["goal"]["met"], true);
  EXPECT_EQ(st["goal"]["met_round"], 3);
  EXPECT_EQ(st["steering"]["pending"], 0);
  int64_t winner = st["best"]["candidate"];
  EXPECT_EQ(st["goal"]["met_candidate"], winner);
  EXPECT_EQ(st["best"]["idea"], "one block per row, reductions across the block");

  // 5. Review and export the approved kernel.
  json review = run_json("review '" + db_ + "' " + std::to_string(winner) +
                         " --approve --note 'checked the reduction order' --reviewer bob --json");
  EXPECT_EQ(review["review"]["verdict"], "approved");
  fs::path kernel = dir_ / "kernel.cu";
  Result exported = run("export '" + db_ + "' --require-approved -o '" + kernel.string() + "'");
  EXPECT_EQ(exported.code, 0) << exported.out << exported.err;
  EXPECT_NE(read(kernel).find("candidate " + std::to_string(winner)), std::string::npos);

  // 6. The store holds every step.
  {
    Store store(db_, Store::Mode::read_only);
    int64_t run_id = *store.latest_run();
    EXPECT_EQ(store.list_runs().size(), 1u);
    auto goal = find_goal(store, run_id);
    ASSERT_TRUE(goal);
    EXPECT_EQ(goal->goal.text, "speedup>=100");
    EXPECT_EQ(*goal->met_round, 2);
    EXPECT_EQ(*goal->met_candidate, winner);
    ASSERT_EQ(stalls_of_run(store, run_id).size(), 1u);
    EXPECT_EQ(stalls_of_run(store, run_id)[0].round_index, 1);
    auto actions = steering_actions(store, run_id);
    ASSERT_EQ(actions.size(), 2u);
    EXPECT_EQ(actions[0].author, "alice");
    EXPECT_EQ(actions[0].outcome, "candidate " + std::to_string(winner));
    for (const auto& a : actions) EXPECT_EQ(*a.applied_round, 2);
    auto reviews = reviews_of_run(store, run_id);
    ASSERT_EQ(reviews.size(), 1u);
    EXPECT_EQ(reviews[0].reviewer, "bob");
    EXPECT_EQ(store.find_run(run_id)->status, "goal-met");
  }

  // 7. And so does the report.
  fs::path html = dir_ / "report.html";
  Result rep = run("report '" + db_ + "' -o '" + html.string() + "'");
  ASSERT_EQ(rep.code, 0) << rep.out << rep.err;
  std::string page = read(html);
  for (const char* want :
       {"id=\"goal-section\"", "Met</b> in round 3", "id=\"stalls-section\"", "The best time gained 0.00% over round 2",
        "id=\"steering-section\"", "alice", "keep each row in registers", "add-schedule", "id=\"reviews-section\"",
        "bob", "checked the reduction order", "id=\"cpu-only-note\"", "cost model"})
    EXPECT_NE(page.find(want), std::string::npos) << "the report lacks " << want;
  EXPECT_GT(polls, 0);
}

TEST_F(Engineer, AddedKernelIsJudgedByTheRulesOfCheck) {
  fs::path none = write("none.jsonl", "");
  const std::string search = "search -p softmax --backend interp --proposer file --proposals '" + none.string() +
                             "' --rounds 1 --stall-rounds 0 --db '" + db_ + "'";
  Result first = run(search);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  const std::string kernels = std::string(CUSCHED_SOURCE_DIR) + "/tests/cheats/kernels/";
  // The launch comes from the file's `// cusched-launch size=small` line.
  json added = run_json("steer '" + db_ + "' --add-kernel '" + kernels + "softmax_honest.cu' --author alice --json");
  EXPECT_EQ(added["added"][0]["kind"], "add-kernel");
  EXPECT_EQ(added["added"][0]["payload"]["grid"], json({8, 1, 1}));
  EXPECT_FALSE(added["added"][0]["payload"].contains("source")) << "the kernel text stays in the store";
  // A kernel with no launch for the run's size is refused when steering.
  json bad =
      run_json("steer '" + db_ + "' --add-kernel '" + kernels + "softmax_honest.cu' --block 0 --author alice", 2);
  EXPECT_EQ(bad["error"]["code"], "bad-launch");

  // Every round has run: the resume runs one more for the pending kernel.
  Result resumed = run(search + " --resume");
  EXPECT_NE(resumed.out.find("one more round applies the pending steering"), std::string::npos) << resumed.out;
  Store store(db_, Store::Mode::read_only);
  int64_t run_id = *store.latest_run();
  auto actions = steering_actions(store, run_id);
  ASSERT_EQ(actions.size(), 1u);
  ASSERT_EQ(actions[0].outcome.rfind("candidate ", 0), 0u) << actions[0].outcome;
  int64_t id = std::stoll(actions[0].outcome.substr(10));
  auto c = store.candidate(id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->schedule_hash.rfind("kernel-", 0), 0u);
  auto e = store.evaluation(id);
  ASSERT_TRUE(e);
  // The interpreter runs schedules only: audited and scanned, then not ranked.
  EXPECT_EQ(e->verdict, "no_gpu") << e->reason;
  EXPECT_FALSE(e->verified);
  auto a = store.artifacts(id);
  ASSERT_TRUE(a);
  EXPECT_NE(a->cuda_source.find("softmax"), std::string::npos);
}

TEST_F(Engineer, BadGoalIsAStructuredErrorNamingTheForms) {
  Result r = run("search -p softmax --backend interp --goal 'faster please' --db '" + db_ + "'");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["error"]["code"], "bad-goal");
  EXPECT_NE(j["error"]["hint"].get<std::string>().find("floor>=P%"), std::string::npos);
  EXPECT_FALSE(fs::exists(db_)) << "a bad goal must be refused before a store is made";
}

TEST_F(Engineer, AllRejectedRoundsStallWithTheirReasons) {
  // Every proposal illegal: round 1 has the baseline, rounds 2 and 3 only rejections.
  fs::path proposals = write(
      "bad.jsonl", std::string(R"({"idea": "no such op", "schedule": [{"op": "warp_magic"}]})") + "\n" +
                       R"({"idea": "bad loop", "schedule": [{"op": "unroll", "stage": "Y", "loop": "zz"}]})" + "\n");
  Result r = run("search -p softmax --backend interp --no-audit --proposer file --proposals '" + proposals.string() +
                 "' --ideas 1 --per-idea 1 --rounds 5 --stall-rounds 2 --db '" + db_ + "'");
  EXPECT_EQ(r.code, 6) << r.out << r.err;
  EXPECT_NE(r.out.find("rejections in the last rounds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("invalid_schedule"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cusched::search
