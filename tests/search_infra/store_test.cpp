#include "search/store.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsl/error.h"

namespace fs = std::filesystem;
using namespace cusched::search;

namespace {

std::string temp_db(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("cusched_store_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto p = dir / name;
  fs::remove(p);
  fs::remove(p.string() + "-wal");
  fs::remove(p.string() + "-shm");
  return p.string();
}

nlohmann::json schedule_with_factor(int f) {
  return nlohmann::json::array({{{"op", "split"}, {"stage", "C"}, {"loop", "i"}, {"factor", f}}});
}

int64_t gpu_run(Store& s, const std::string& backend = "gpu") {
  RunInfo r;
  r.problem = "softmax";
  r.size = "small";
  r.backend = backend;
  r.seed = 7;
  r.config = {{"rounds", 3}};
  return s.create_run(r);
}

EvaluationRecord verified(int64_t cand, double ms, double cost) {
  EvaluationRecord e;
  e.candidate = cand;
  e.verdict = "ok";
  e.verified = true;
  e.median_ms = ms;
  e.min_ms = ms * 0.9;
  e.max_ms = ms * 1.1;
  e.cost_estimate = cost;
  e.precision = "f32";
  e.backend = "gpu";
  return e;
}

}  // namespace

TEST(Store, RunRoundIdeaCandidateRoundTrip) {
  Store s(temp_db("roundtrip.db"));
  int64_t run = gpu_run(s);
  auto info = s.find_run(run);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->problem, "softmax");
  EXPECT_EQ(info->config["rounds"], 3);
  EXPECT_EQ(info->seed, 7u);
  EXPECT_FALSE(info->created.empty());
  EXPECT_EQ(s.latest_run(), run);
  EXPECT_EQ(s.next_round_index(run), 0);

  int64_t round = s.begin_round(run, 0);
  EXPECT_EQ(s.begin_round(run, 0), round) << "begin_round on an existing index must return that round";
  EXPECT_EQ(s.next_round_index(run), 1);
  int64_t idea = s.add_idea(round, "tile rows across warps", "llm");
  auto a = s.add_candidate({run, round, idea, std::nullopt, schedule_with_factor(128), ""});
  EXPECT_TRUE(a.is_new);
  auto again = s.add_candidate({run, round, idea, std::nullopt, schedule_with_factor(128), ""});
  EXPECT_FALSE(again.is_new);
  EXPECT_EQ(again.id, a.id);
  auto child = s.add_candidate({run, round, idea, a.id, schedule_with_factor(256), ""});
  EXPECT_NE(child.id, a.id);

  auto c = s.candidate(child.id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->parent, a.id);
  EXPECT_EQ(c->idea_text, "tile rows across warps");
  EXPECT_EQ(c->idea_source, "llm");
  EXPECT_EQ(c->round_index, 0);
  EXPECT_EQ(c->status, "proposed");
  EXPECT_EQ(c->schedule[0]["factor"], 256);

  // The same schedule in another run is a new candidate there.
  int64_t run2 = gpu_run(s);
  EXPECT_TRUE(s.add_candidate({run2, std::nullopt, std::nullopt, std::nullopt, schedule_with_factor(128), ""}).is_new);

  s.finish_round(round, 100, 50);
  auto r = s.find_round(round);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->finished.empty());
  EXPECT_EQ(r->prompt_tokens, 100);
  EXPECT_EQ(r->completion_tokens, 50);
}

TEST(Store, PendingLeaderboardFailuresAndSummaries) {
  Store s(temp_db("leaderboard.db"));
  int64_t run = gpu_run(s);
  int64_t r0 = s.begin_round(run, 0);
  int64_t r1 = s.begin_round(run, 1);
  auto slow = s.add_candidate({run, r0, std::nullopt, std::nullopt, schedule_with_factor(32), ""}).id;
  auto fast = s.add_candidate({run, r1, std::nullopt, slow, schedule_with_factor(64), ""}).id;
  auto wrong = s.add_candidate({run, r1, std::nullopt, slow, schedule_with_factor(16), ""}).id;
  auto bad = s.add_candidate({run, r1, std::nullopt, std::nullopt, schedule_with_factor(8), ""}).id;
  auto waiting = s.add_candidate({run, r1, std::nullopt, std::nullopt, schedule_with_factor(4), ""}).id;
  auto lowered = s.add_candidate({run, r1, std::nullopt, std::nullopt, schedule_with_factor(2), ""}).id;

  s.save_artifacts(fast, {"__global__ void k() {}", "for i", nullptr, nlohmann::json::array({{{"line", 1}}}), nullptr});
  s.save_artifacts(lowered, {"src", "ir", nullptr, nullptr, nullptr});
  EXPECT_EQ(s.candidate(lowered)->status, "lowered");

  s.save_evaluation(verified(slow, 2.0, 10));
  s.save_evaluation(verified(fast, 1.0, 20));
  EvaluationRecord w;
  w.candidate = wrong;
  w.verdict = "wrong_output";
  w.reason = "max abs error 3.2 at (0, 5)";
  w.median_ms = 0.5;  // fast but wrong: must not rank
  w.precision = "f32";
  w.backend = "gpu";
  s.save_evaluation(w);
  s.reject(bad, "reduction-loop-on-block-axis", "binding k races");

  auto pend = s.pending(run);
  ASSERT_EQ(pend.size(), 2u);
  EXPECT_EQ(pend[0].id, waiting);
  EXPECT_EQ(pend[1].id, lowered);

  auto board = s.leaderboard(run, 10);
  ASSERT_EQ(board.size(), 2u);
  EXPECT_EQ(board[0].candidate.id, fast);
  EXPECT_EQ(board[1].candidate.id, slow);
  EXPECT_EQ(s.leaderboard(run, 1).size(), 1u);

  auto fails = s.recent_failures(run, 10);
  ASSERT_EQ(fails.size(), 2u);
  EXPECT_EQ(fails[0].candidate.id, bad);
  EXPECT_EQ(fails[0].candidate.status, "rejected");
  EXPECT_EQ(fails[0].evaluation.reason, "binding k races");
  EXPECT_EQ(fails[1].candidate.id, wrong);

  auto best = s.best_tried(run, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].cuda_source, "__global__ void k() {}");
  EXPECT_EQ(best[0].candidate_id, fast);
  EXPECT_EQ(best[0].audit_findings[0]["line"], 1);
  EXPECT_DOUBLE_EQ(best[0].median_ms, 1.0);

  auto sums = s.round_summaries(run);
  ASSERT_EQ(sums.size(), 2u);
  EXPECT_EQ(sums[0].candidates, 1);
  EXPECT_EQ(sums[0].verified, 1);
  EXPECT_EQ(sums[0].best_in_round, 2.0);
  EXPECT_EQ(sums[1].candidates, 5);
  EXPECT_EQ(sums[1].verified, 1);
  EXPECT_EQ(sums[1].rejected, 1);
  EXPECT_EQ(sums[1].evaluated, 3);
  EXPECT_EQ(sums[1].best_in_round, 1.0);
  EXPECT_EQ(sums[1].best_candidate_in_round, fast);
  EXPECT_EQ(sums[1].best_so_far, 1.0);
}

TEST(Store, InterpreterRunsRankByCost) {
  Store s(temp_db("interp.db"));
  int64_t run = gpu_run(s, "interp");
  auto a = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, schedule_with_factor(1), ""}).id;
  auto b = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, schedule_with_factor(2), ""}).id;
  s.save_evaluation(verified(a, 1.0, 50));  // faster time, higher cost
  s.save_evaluation(verified(b, 9.0, 5));
  auto board = s.leaderboard(run, 10);
  ASSERT_EQ(board.size(), 2u);
  EXPECT_EQ(board[0].candidate.id, b);
}

TEST(Store, LlmCallsAreKeptPerRun) {
  Store s(temp_db("calls.db"));
  int64_t run = gpu_run(s);
  int64_t round = s.begin_round(run, 0);
  ModelCall c{"ideas", 1200, 300, "stop", "", "{\"choices\":[]}"};
  s.add_llm_call(round, c);
  auto calls = s.llm_calls(run);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].call.purpose, "ideas");
  EXPECT_EQ(calls[0].call.prompt_tokens, 1200);
  EXPECT_EQ(calls[0].call.raw_reply, "{\"choices\":[]}");
  EXPECT_TRUE(s.llm_calls(gpu_run(s)).empty());
}

TEST(Store, BadInputsGiveStructuredErrors) {
  EXPECT_THROW(Store(temp_db("missing.db"), Store::Mode::existing_only), cusched::UserError);
  std::string junk = temp_db("junk.db");
  {
    std::FILE* f = std::fopen(junk.c_str(), "w");
    std::fputs("this is not a database, it is plain text that is long enough to look like a header......", f);
    std::fclose(f);
  }
  try {
    Store s(junk);
    FAIL() << "opening a text file as a store must fail";
  } catch (const cusched::UserError& e) {
    EXPECT_EQ(e.error().code, "store-open-failed");
    EXPECT_FALSE(e.error().hint.empty());
  }
  Store s(temp_db("bad.db"));
  RunInfo r;
  r.backend = "tpu";
  EXPECT_THROW(s.create_run(r), cusched::UserError);
  int64_t run = gpu_run(s);
  EXPECT_THROW(s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, nlohmann::json::object(), ""}),
               cusched::UserError);
  EXPECT_THROW(s.save_evaluation(verified(12345, 1, 1)), cusched::UserError);
  EXPECT_EQ(s.integrity_check(), "ok");
}

// A child that writes evaluations in a loop, reporting each committed id on a
// pipe, is killed with SIGKILL; the file must open, be sound, and hold every
// evaluation the child reported as committed.
TEST(Store, SurvivesSigkillMidWrite) {
  const std::string path = temp_db("killed.db");
  int64_t run;
  {
    Store s(path);
    run = gpu_run(s);
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    try {
      Store s(path);
      int64_t round = s.begin_round(run, 0);
      for (int i = 0;; ++i) {
        auto c = s.add_candidate({run, round, std::nullopt, std::nullopt, schedule_with_factor(i + 1), ""});
        Artifacts a;
        a.cuda_source = std::string(4096, 'x');  // large enough that commits take a while
        s.save_artifacts(c.id, a);
        s.save_evaluation(verified(c.id, 1.0 + i, i));
        int64_t id = c.id;
        if (write(fds[1], &id, sizeof id) != sizeof id) _exit(3);
      }
    } catch (...) {
      _exit(2);
    }
  }
  close(fds[1]);
  std::set<int64_t> committed;
  int64_t id;
  while (committed.size() < 200 && read(fds[0], &id, sizeof id) == sizeof id) committed.insert(id);
  kill(pid, SIGKILL);
  while (read(fds[0], &id, sizeof id) == sizeof id) committed.insert(id);  // reported before the kill landed
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer should have been killed, exit status " << status;

  Store s(path, Store::Mode::existing_only);
  EXPECT_EQ(s.integrity_check(), "ok");
  std::set<int64_t> stored;
  for (const auto& e : s.evaluations(run)) stored.insert(e.candidate);
  ASSERT_GE(committed.size(), 200u);
  for (int64_t c : committed) EXPECT_TRUE(stored.count(c)) << "committed evaluation of candidate " << c << " was lost";
  // Whatever the child had begun but not committed is absent or complete, and
  // the store keeps working.
  for (const auto& c : s.candidates(run)) {
    if (c.status == "evaluated") {
      EXPECT_TRUE(s.evaluation(c.id));
    }
  }
  auto more = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, schedule_with_factor(-1), ""});
  EXPECT_TRUE(more.is_new);
}

TEST(Store, TwoProcessesWritingConcurrently) {
  const std::string path = temp_db("concurrent.db");
  int64_t run;
  {
    Store s(path);
    run = gpu_run(s);
  }
  constexpr int kPerWriter = 150;
  std::vector<pid_t> kids;
  for (int w = 0; w < 2; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        Store s(path);
        int64_t round = s.begin_round(run, 0);  // both writers race for the same round
        for (int i = 0; i < kPerWriter; ++i) {
          auto c = s.add_candidate({run, round, std::nullopt, std::nullopt, schedule_with_factor(w * 100000 + i), ""});
          s.save_evaluation(verified(c.id, 1.0 + i, i));
          // Both writers also propose one shared schedule; the run must keep one copy.
          s.add_candidate({run, round, std::nullopt, std::nullopt, schedule_with_factor(-7), ""});
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d failed: %s\n", w, e.what());
        _exit(2);
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  }
  Store s(path, Store::Mode::existing_only);
  EXPECT_EQ(s.integrity_check(), "ok");
  EXPECT_EQ(s.evaluations(run).size(), 2u * kPerWriter);
  EXPECT_EQ(s.candidates(run).size(), 2u * kPerWriter + 1);
  EXPECT_EQ(s.round_summaries(run).size(), 1u);
}

TEST(Store, RunsKeepTheirProblemDefinition) {
  std::string path = temp_db("definition.db");
  nlohmann::json definition = {{"name", "row_sumsq"}, {"stages", {"S(i in R) = sum(k in D: X(i, k) * X(i, k))"}}};
  int64_t with, without;
  {
    Store s(path);
    RunInfo r;
    r.problem = "row_sumsq";
    r.size = "small";
    r.backend = "interp";
    r.problem_definition = definition;
    with = s.create_run(r);
    without = gpu_run(s);
  }
  Store s(path, Store::Mode::existing_only);
  EXPECT_EQ(s.find_run(with)->problem_definition, definition);
  EXPECT_TRUE(s.find_run(without)->problem_definition.is_null());
  EXPECT_EQ(s.list_runs().front().problem_definition, definition);
}

TEST(Store, AStoreWithoutTheDefinitionColumnGainsIt) {
  std::string path = temp_db("old_schema.db");
  {
    Store s(path);
    gpu_run(s);
  }
  // The runs table as stores wrote it before runs kept their definition.
  std::string sql =
      "sqlite3 '" + path +
      "' \"CREATE TABLE runs_old (id INTEGER PRIMARY KEY, problem TEXT NOT NULL, "
      "size TEXT NOT NULL, backend TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL, "
      "created TEXT NOT NULL, status TEXT NOT NULL); INSERT INTO runs_old SELECT id, problem, size, backend, "
      "config, seed, created, status FROM runs; DROP TABLE runs; ALTER TABLE runs_old RENAME TO runs;\"";
  if (std::system(sql.c_str()) != 0) GTEST_SKIP() << "the sqlite3 command is not installed";
  Store s(path, Store::Mode::existing_only);
  ASSERT_EQ(s.list_runs().size(), 1u);
  EXPECT_TRUE(s.list_runs()[0].problem_definition.is_null());
  RunInfo r;
  r.problem = "relu";
  r.size = "small";
  r.backend = "interp";
  r.problem_definition = {{"name", "relu"}};
  int64_t id = s.create_run(r);
  EXPECT_EQ(s.find_run(id)->problem_definition["name"], "relu");
}

// report and export open stores read-only: an empty file stays empty and is not a
// store, a damaged store is reported as damaged, a sound one reads.
TEST(Store, ReadOnlyOpenChecksTheFileAndWritesNothing) {
  auto code_of = [](const std::string& path) {
    try {
      Store s(path, Store::Mode::read_only);
    } catch (const cusched::UserError& e) {
      EXPECT_FALSE(e.error().hint.empty());
      return e.error().code;
    }
    return std::string("ok");
  };
  std::string empty = temp_db("empty.db");
  { std::ofstream(empty, std::ios::binary); }
  EXPECT_EQ(code_of(empty), "not-a-store");
  EXPECT_EQ(fs::file_size(empty), 0u) << "reading a store must not write into it";
  EXPECT_EQ(code_of(temp_db("absent.db")), "store-not-found");

  std::string good = temp_db("good.db");
  {
    Store s(good);
    int64_t run = gpu_run(s);
    for (int i = 0; i < 200; ++i)
      s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt,
                       nlohmann::json::array({{{"op", "split"}, {"factor", i}}}), ""});
  }
  EXPECT_EQ(code_of(good), "ok");
  // Overwrite bytes in the middle of the file: SQLite's integrity check finds it.
  {
    std::fstream f(good, std::ios::in | std::ios::out | std::ios::binary);
    auto size = static_cast<std::streamoff>(fs::file_size(good));
    for (std::streamoff at = size / 3; at < size - 64; at += 331) {
      f.seekp(at);
      f.put('\x5a');
    }
  }
  std::string damaged = code_of(good);
  EXPECT_TRUE(damaged == "store-damaged" || damaged == "not-a-store") << damaged;
}
