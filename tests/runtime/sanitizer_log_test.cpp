// The compute-sanitizer log reader: each tool's summary line gives the error count; and a
// tool's run past its time limit is stopped with its process group (a stand-in
// compute-sanitizer, no GPU needed).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/sanitizer.h"

namespace cusched::runtime {
namespace {

TEST(SanitizerLog, MemcheckSummaryGivesTheErrors) {
  SanitizerRun run;
  ASSERT_TRUE(read_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", run));
  EXPECT_EQ(run.errors, 0);
  EXPECT_TRUE(run.findings.empty());
  SanitizerRun bad;
  ASSERT_TRUE(
      read_sanitizer_log("========= Invalid __global__ write of size 4 bytes\n"
                         "=========     at k0_Y+0x90\n========= ERROR SUMMARY: 1 error\n",
                         bad));
  EXPECT_EQ(bad.errors, 1);
  ASSERT_EQ(bad.findings.size(), 1u);
  EXPECT_NE(bad.findings[0].find("Invalid __global__ write"), std::string::npos);
}

TEST(SanitizerLog, RacecheckSummaryCountsErrorsAndWarnings) {
  SanitizerRun clean;
  ASSERT_TRUE(read_sanitizer_log("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", clean));
  EXPECT_EQ(clean.errors, 0);
  SanitizerRun racy;
  ASSERT_TRUE(
      read_sanitizer_log("========= Error: Race reported between Write access at k0_Y+0x1f0\n"
                         "========= Warning: Race reported between Read access at k0_Y+0x200\n"
                         "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)\n",
                         racy));
  EXPECT_EQ(racy.errors, 3);
  EXPECT_EQ(racy.findings.size(), 2u);
}

TEST(SanitizerLog, ALogWithoutASummaryIsNotRead) {
  SanitizerRun run;
  EXPECT_FALSE(
      read_sanitizer_log("========= COMPUTE-SANITIZER\n========= Target application returned an error\n", run));
  EXPECT_EQ(run.errors, -1);
}

TEST(SanitizerRunLimit, AToolRunPastItsLimitIsStoppedWithItsChildren) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cusched-sanitizer-limit-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path fake = dir / "compute-sanitizer";
  const fs::path child_pid = dir / "child.pid";
  {
    // Starts a child that would outlive a kill of the fake alone, then waits.
    std::ofstream f(fake);
    f << "#!/bin/sh\nsleep 60 &\necho $! > '" << child_pid.string() << "'\nwait\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  ASSERT_EQ(setenv("CUSCHED_COMPUTE_SANITIZER", fake.c_str(), 1), 0);
  const auto began = std::chrono::steady_clock::now();
  auto runs = sanitize(EvalRequest{}, {"memcheck"}, "/bin/true", 1.0);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  unsetenv("CUSCHED_COMPUTE_SANITIZER");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].errors, -1);
  EXPECT_NE(runs[0].problem.find("limit of 1 s"), std::string::npos) << runs[0].problem;
  EXPECT_GE(runs[0].seconds, 1.0);
  EXPECT_LT(took, 10.0);
  EXPECT_FALSE(sanitizer_report(runs)["clean"].get<bool>());
  pid_t pid = 0;
  std::ifstream(child_pid) >> pid;
  ASSERT_GT(pid, 0);
  // The group's kill reached the child: it is gone (or a zombie of init's, not running).
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    gone = !std::getline(stat, line) || line.find(") Z") != std::string::npos;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "the tool's child " << pid << " still runs";
  if (!gone) kill(pid, SIGKILL);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cusched::runtime
