// The compute-sanitizer log reader: each tool's summary line gives the error count.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cusched::runtime
