// `cusched search` as a child process: a run killed mid-round resumes without
// redoing or duplicating evaluations; the file proposer reads JSON lines on stdin.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "search/store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("cusched_cli_" + name + "_" + std::to_string(getpid()));
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(p.string() + ext);
  return p.string();
}

// Runs `args` with stdout on a pipe; calls `on_line` for each line until it returns true,
// then SIGKILLs the child. Returns the lines read.
std::vector<std::string> run_until(const std::vector<std::string>& args,
                                   const std::function<bool(const std::string&)>& kill_after) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  std::vector<std::string> lines;
  char buf[4096];
  bool killed = false;
  while (fgets(buf, sizeof buf, in)) {
    lines.emplace_back(buf);
    if (kill_after(lines.back())) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(in);
  EXPECT_TRUE(killed) << "the search ended before the kill";
  return lines;
}

int run_shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(CliSearch, KilledMidRoundResumesWithoutRedoingEvaluations) {
  std::string db = temp_path("resume") + ".db";
  std::vector<std::string> args = {CUSCHED_BIN,  "search",   "--problem", "softmax", "--backend", "interp",
                                   "--no-audit", "--rounds", "5",         "--ideas", "2",         "--per-idea",
                                   "4",          "--seed",   "3",         "--db",    db,          "--stall-rounds",
                                   "0"};  // all five rounds, stalled or not
  // Kill right after round 2's candidates are stored, while they are being evaluated.
  run_until(args, [](const std::string& l) {
    return l.rfind("round 2/5:", 0) == 0 && l.find("new candidate") != std::string::npos;
  });

  std::map<int64_t, std::string> before;  // candidate -> verdict
  int64_t run = 0;
  {
    Store store(db, Store::Mode::existing_only);
    ASSERT_EQ(store.integrity_check(), "ok");
    run = *store.latest_run();
    EXPECT_EQ(store.find_run(run)->status, "running");
    for (const auto& e : store.evaluations(run)) before[e.candidate] = e.verdict;
    EXPECT_FALSE(before.empty());
    // The kill came inside round 2: it is begun and not finished.
    auto rounds = store.round_summaries(run);
    ASSERT_EQ(rounds.size(), 2u);
    EXPECT_FALSE(rounds[0].round.finished.empty());
    EXPECT_TRUE(rounds[1].round.finished.empty());
    EXPECT_GT(rounds[1].candidates, 0);
  }
  std::string out = temp_path("resume_out");
  int rc = run_shell(std::string(CUSCHED_BIN) + " search --problem softmax --db " + db + " --resume --no-audit > " +
                     out + " 2>&1");
  std::string log = read_file(out);
  EXPECT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("resume run"), std::string::npos) << log;

  Store store(db, Store::Mode::existing_only);
  EXPECT_EQ(*store.latest_run(), run);  // no new run
  EXPECT_EQ(store.find_run(run)->status, "finished");
  std::map<int64_t, int> count;
  std::map<int64_t, std::string> after;
  for (const auto& e : store.evaluations(run)) {
    ++count[e.candidate];
    after[e.candidate] = e.verdict;
  }
  for (const auto& [c, n] : count) EXPECT_EQ(n, 1) << "candidate " << c << " evaluated twice";
  for (const auto& [c, v] : before) {
    ASSERT_TRUE(after.count(c)) << "evaluation of candidate " << c << " lost";
    EXPECT_EQ(after[c], v);
  }
  EXPECT_TRUE(store.pending(run).empty());
  auto rounds = store.round_summaries(run);
  ASSERT_EQ(rounds.size(), 5u) << log;
  for (const auto& r : rounds) EXPECT_FALSE(r.round.finished.empty()) << "round " << r.round.index;
  std::set<std::string> hashes;
  for (const auto& c : store.candidates(run)) EXPECT_TRUE(hashes.insert(c.schedule_hash).second);
  EXPECT_EQ(count.size(), store.candidates(run).size());
}

TEST(CliSearch, FileProposerReadsJsonLinesOnStdin) {
  std::string db = temp_path("file") + ".db";
  std::string in = temp_path("file_in");
  std::string out = temp_path("file_out");
  {
    std::ofstream f(in);
    f << R"({"idea": "128 threads per block", "schedule": [{"op": "split", "stage": "Y", "loop": "j", "factor": 128}, {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.y"}, {"op": "bind", "stage": "Y", "loop": "jo", "axis": "blockIdx.x"}, {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"}]})"
      << "\n";
    f << "this is not json\n";
    f << R"([{"op": "split", "stage": "Y", "loop": "nope", "factor": 4}])" << "\n";
  }
  int rc = run_shell(std::string(CUSCHED_BIN) +
                     " search --problem softmax --proposer file --proposals - --backend interp --no-audit " +
                     "--rounds 2 --ideas 1 --per-idea 2 --db " + db + " < " + in + " > " + out + " 2>&1");
  std::string log = read_file(out);
  EXPECT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("bad-line"), std::string::npos) << log;
  Store store(db, Store::Mode::existing_only);
  int64_t run = *store.latest_run();
  auto cands = store.candidates(run);
  ASSERT_EQ(cands.size(), 3u) << log;  // the baseline and the two schedules
  EXPECT_EQ(cands[1].idea_text, "128 threads per block");
  EXPECT_EQ(cands[1].idea_source, "file");
  EXPECT_TRUE(store.evaluation(cands[1].id)->verified);
  EXPECT_EQ(store.evaluation(cands[2].id)->verdict, "invalid_schedule");
  EXPECT_EQ(store.round_summaries(run).size(), 2u);
}

}  // namespace
TEST(CliSearch, SanitizeSecondsMustBeFromOneSecondToAnHour) {
  const std::string dir = ::testing::TempDir() + "cusched-sanitize-seconds-" + std::to_string(getpid());
  const std::string out = dir + ".json";
  std::string base = std::string(CUSCHED_BIN) + " search -p relu --backend interp --rounds 1 --ideas 1 --per-idea 1 " +
                     "--db " + dir + ".db --json";
  EXPECT_NE(run_shell(base + " --sanitize-seconds 0 > " + out + " 2>/dev/null"), 0);
  auto reply = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(reply["error"]["code"], "bad-flag");
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("--sanitize-seconds"), std::string::npos);
  EXPECT_EQ(run_shell(base + " --sanitize-seconds 5 > " + out + " 2>/dev/null"), 0);
  std::remove(out.c_str());
  std::remove((dir + ".db").c_str());
}

}  // namespace cusched::search
