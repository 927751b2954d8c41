// `mpirun --oversubscribe -n N cusched search --mpi` with the interpreter at the
// small size: every candidate is stored once, a rank killed mid-search loses
// nothing (dropped by the answer timeout, or by its missing heartbeat long before
// that timeout), a slow rank that still sends heartbeats is kept, and replayed
// timings give the same search on 1 and on 3 ranks.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "search/store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("cusched_mpi_" + name + "_" + std::to_string(getpid()));
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(p.string() + ext);
  return p.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Launch {
  int rc = -1;
  std::string log;
};

// mpirun (as root when the tests run as root) of `cusched search --mpi` on relu
// with the interpreter, `ranks` processes, extra mpirun options and search flags.
Launch mpi_search(int ranks, const std::string& db, const std::string& search_flags,
                  const std::string& mpirun_flags = "") {
  std::string out = db + ".log";
  // OpenMPI 4.1 with --enable-recovery may keep mpirun alive after a rank was killed
  // even though rank 0 has finished the search; the tests judge the store and the log,
  // so mpirun gets a deadline.
  std::string cmd = "timeout -k 5 60 " + std::string(CUSCHED_MPIEXEC) + (geteuid() == 0 ? " --allow-run-as-root" : "") +
                    " --oversubscribe --bind-to none " + mpirun_flags + " -n " + std::to_string(ranks) + " " +
                    CUSCHED_BIN + " search --problem relu --backend interp --no-audit --seed 5 --mpi --db " + db + " " +
                    search_flags + " > " + out + " 2>&1";
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out)};
}

// Every candidate of the latest run has exactly one evaluation, stored in
// candidate order; none is pending; every round finished. Returns the run.
int64_t expect_complete(const std::string& db, int rounds, const std::string& log) {
  Store store(db, Store::Mode::existing_only);
  int64_t run = *store.latest_run();
  EXPECT_EQ(store.find_run(run)->status, "finished") << log;
  std::map<int64_t, int> count;
  int64_t previous = 0;
  for (const auto& e : store.evaluations(run)) {
    ++count[e.candidate];
    // Stored in candidate order, not in the order the ranks answered.
    EXPECT_GT(e.candidate, previous) << log;
    previous = e.candidate;
  }
  auto candidates = store.candidates(run);
  EXPECT_FALSE(candidates.empty()) << log;
  for (const auto& c : candidates) EXPECT_EQ(count[c.id], 1) << "candidate " << c.id << "\n" << log;
  EXPECT_TRUE(store.pending(run).empty()) << log;
  auto summaries = store.round_summaries(run);
  EXPECT_EQ(static_cast<int>(summaries.size()), rounds) << log;
  for (const auto& r : summaries) EXPECT_FALSE(r.round.finished.empty()) << "round " << r.round.index << "\n" << log;
  return run;
}

TEST(MpiSearch, ThreeRanksEvaluateAndStoreEveryCandidateOnce) {
  std::string db = temp_path("three") + ".db";
  Launch l = mpi_search(3, db, "--rounds 2 --ideas 2 --per-idea 3");
  EXPECT_EQ(l.rc, 0) << l.log;
  EXPECT_NE(l.log.find("MPI: 3 rank(s)"), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("MPI evaluators alive 2/2"), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("done: run"), std::string::npos) << l.log;
  expect_complete(db, 2, l.log);
}

TEST(MpiSearch, RankKilledMidSearchLosesNoCandidate) {
  std::string db = temp_path("killed") + ".db";
  // Rank 2 kills itself when its second task arrives; rank 0 hears nothing from it.
  setenv("CUSCHED_TEST_MPI_RANK_DIES", "2:1", 1);
  Launch l = mpi_search(3, db, "--rounds 3 --ideas 2 --per-idea 3 --rank-timeout 3",
                        "--enable-recovery -x CUSCHED_TEST_MPI_RANK_DIES");
  unsetenv("CUSCHED_TEST_MPI_RANK_DIES");
  EXPECT_NE(l.log.find("rank 2 ("), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("did not answer within 3 s: dropped, its candidate goes back to the queue"), std::string::npos)
      << l.log;
  EXPECT_NE(l.log.find("MPI evaluators alive 1/2"), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("done: run"), std::string::npos) << l.log;
  expect_complete(db, 3, l.log);
}

TEST(MpiSearch, ADeadRankIsDroppedWhenItsHeartbeatStops) {
  std::string db = temp_path("silent") + ".db";
  // Rank 2 kills itself when its second task arrives. The answer timeout (600 s) is
  // far beyond the test's 60 s deadline: only the missing heartbeat can drop the rank.
  setenv("CUSCHED_TEST_MPI_RANK_DIES", "2:1", 1);
  Launch l = mpi_search(3, db, "--rounds 3 --ideas 2 --per-idea 3 --rank-timeout 600 --rank-silence 3",
                        "--enable-recovery -x CUSCHED_TEST_MPI_RANK_DIES");
  unsetenv("CUSCHED_TEST_MPI_RANK_DIES");
  EXPECT_NE(l.log.find("rank 2 ("), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("sent no heartbeat for 3 s (the rank is gone): dropped, its candidate goes back to the queue"),
            std::string::npos)
      << l.log;
  EXPECT_NE(l.log.find("MPI evaluators alive 1/2"), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("done: run"), std::string::npos) << l.log;
  expect_complete(db, 3, l.log);
}

TEST(MpiSearch, ASlowRankThatSendsHeartbeatsIsKept) {
  std::string db = temp_path("slow") + ".db";
  // Each of rank 1's evaluations takes 4 s longer, twice the 2 s of silence allowed:
  // its heartbeats keep it.
  setenv("CUSCHED_TEST_MPI_RANK_SLOW", "1:4", 1);
  Launch l = mpi_search(3, db, "--rounds 1 --ideas 2 --per-idea 2 --rank-silence 2", "-x CUSCHED_TEST_MPI_RANK_SLOW");
  unsetenv("CUSCHED_TEST_MPI_RANK_SLOW");
  EXPECT_EQ(l.rc, 0) << l.log;
  EXPECT_EQ(l.log.find("dropped"), std::string::npos) << l.log;
  EXPECT_NE(l.log.find("MPI evaluators alive 2/2"), std::string::npos) << l.log;
  expect_complete(db, 1, l.log);
}

TEST(MpiSearch, RankZeroEvaluatesWhenItsOnlyRankDies) {
  std::string db = temp_path("alone") + ".db";
  setenv("CUSCHED_TEST_MPI_RANK_DIES", "1:2", 1);
  Launch l = mpi_search(2, db, "--rounds 2 --ideas 2 --per-idea 3 --rank-timeout 3",
                        "--enable-recovery -x CUSCHED_TEST_MPI_RANK_DIES");
  unsetenv("CUSCHED_TEST_MPI_RANK_DIES");
  EXPECT_NE(l.log.find("MPI evaluators alive 0/1 (rank 0 evaluates)"), std::string::npos) << l.log;
  expect_complete(db, 2, l.log);
}

// The stored search, candidate by candidate: schedule hash, verdict, ranking time.
struct Trace {
  std::vector<std::string> hashes, verdicts;
  std::vector<double> times;
  std::string winner;
};

Trace trace_of(const std::string& db) {
  Store store(db, Store::Mode::existing_only);
  int64_t run = *store.latest_run();
  Trace t;
  for (const auto& c : store.candidates(run)) {
    t.hashes.push_back(c.schedule_hash);
    auto e = store.evaluation(c.id);
    t.verdicts.push_back(e ? e->verdict : "none");
    t.times.push_back(e && e->cost_estimate ? *e->cost_estimate : -1);
  }
  auto top = store.leaderboard(run, 1);
  if (!top.empty()) t.winner = top[0].candidate.schedule_hash;
  return t;
}

TEST(MpiSearch, ReplayedTimingsChooseTheSameWinnerOnOneAndThreeRanks) {
  const std::string flags = "--rounds 3 --ideas 2 --per-idea 3";
  // The schedules of a first search, each given a replayed time unrelated to the
  // cost model: the hash's last four hex digits, in microseconds, plus one.
  std::string first = temp_path("first") + ".db";
  Launch l0 = mpi_search(1, first, flags);
  ASSERT_EQ(l0.rc, 0) << l0.log;
  Trace base = trace_of(first);
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& h : base.hashes) timings[h] = 1 + std::stoi(h.substr(h.size() - 4), nullptr, 16) / 1000.0;
  std::string file = temp_path("timings") + ".json";
  std::ofstream(file) << timings.dump();

  std::string one = temp_path("one") + ".db", three = temp_path("three_replay") + ".db";
  Launch l1 = mpi_search(1, one, flags + " --replay-timings " + file);
  Launch l3 = mpi_search(3, three, flags + " --replay-timings " + file);
  ASSERT_EQ(l1.rc, 0) << l1.log;
  ASSERT_EQ(l3.rc, 0) << l3.log;
  Trace a = trace_of(one), b = trace_of(three);
  EXPECT_FALSE(a.winner.empty());
  EXPECT_EQ(a.winner, b.winner);
  EXPECT_EQ(a.hashes, b.hashes);
  EXPECT_EQ(a.verdicts, b.verdicts);
  EXPECT_EQ(a.times, b.times);
  // The stored time of every verified schedule the file knows is the replayed one.
  int replayed = 0;
  for (size_t i = 0; i < b.hashes.size(); ++i)
    if (b.verdicts[i] == "ok" && timings.contains(b.hashes[i])) {
      EXPECT_DOUBLE_EQ(b.times[i], timings[b.hashes[i]].get<double>()) << b.hashes[i];
      ++replayed;
    }
  EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace cusched::search
