// `--json` on every command: one JSON document on stdout, for results and for errors
// (bad flags included), and `--version --json`.
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "cusched_run.h"

namespace {

using cli_test::cusched;
using cli_test::Output;

nlohmann::json parsed(const Output& o) {
  nlohmann::json j = nlohmann::json::parse(o.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON document: " << o.out.substr(0, 500);
  return j;
}

TEST(JsonOutput, EveryCommandPrintsOneJsonDocument) {
  std::string dir = (std::filesystem::temp_directory_path() / ("cusched_json_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  const std::string cu = dir + "/k.cu";
  ASSERT_EQ(cusched("lower -p relu -s baseline --size small --emit cuda > " + cu).exit_code, 0);
  struct Case {
    std::string args;
    int exit_code;
  } cases[] = {
      {"problems --json", 0},
      {"problems --describe relu --json", 0},
      {"schema --json", 0},
      {"primitives --json", 0},
      {"validate -p relu -s baseline --json", 0},
      {"lower -p relu -s baseline --emit ir --json", 0},
      {"lower -p relu -s baseline --emit cuda --json", 0},
      {"lower -p relu -s baseline --emit cost --json", 0},
      {"lower -p relu -s baseline --emit bundle --json", 0},
      {"run -p relu -s baseline --backend interp --no-audit --json", 0},
      {"audit " + cu + " --json", 0},
      {"search -p relu --backend interp --no-audit --rounds 1 --ideas 1 --per-idea 1 --db " + dir + "/s.db --json", 0},
      {"report " + dir + "/s.db -o " + dir + "/r.html --json", 0},
      {"export " + dir + "/s.db -o " + dir + "/best.cu --json", 0},
      {"--version --json", 0},
  };
  for (const auto& c : cases) {
    Output o = cusched(c.args);
    EXPECT_EQ(o.exit_code, c.exit_code) << c.args << "\n" << o.out.substr(0, 500);
    nlohmann::json j = parsed(o);
    EXPECT_TRUE(j.is_object() || j.is_array()) << c.args;
  }
  EXPECT_EQ(parsed(cusched("lower -p relu -s baseline --emit cost --json"))["total"]["estimated_ms"].is_number(), true);
  EXPECT_EQ(parsed(cusched("search -p relu --backend interp --no-audit --rounds 1 --ideas 1 --per-idea 1 --db " + dir +
                           "/s2.db --json"))["verified"],
            1);
  std::filesystem::remove_all(dir);
}

TEST(JsonOutput, ErrorsAreJsonOnStdout) {
  for (const std::string args :
       {"validate -p no-such-problem -s baseline --json", "lower -p relu --emit nothing --json",
        "run -p relu --rounds 3 --json", "report /nonexistent.db --json"}) {
    Output o = cusched(args);
    EXPECT_NE(o.exit_code, 0) << args;
    nlohmann::json j = parsed(o);
    ASSERT_TRUE(j.is_object()) << args;
    EXPECT_EQ(j["ok"], false) << args;
    EXPECT_FALSE(j["error"]["code"].get<std::string>().empty()) << args;
    EXPECT_FALSE(j["error"]["hint"].get<std::string>().empty()) << args;
  }
}

TEST(JsonOutput, VersionAsText) {
  Output o = cusched("--version");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out.rfind("cusched ", 0), 0u) << o.out;
}

// Scripts read from the version whether `check` can give audit verdicts in this build:
// it says so exactly when `cusched audit` runs.
TEST(JsonOutput, VersionSaysWhetherTheAuditIsBuiltIn) {
  Output o = cusched("--version --json");
  ASSERT_EQ(o.exit_code, 0);
  auto v = nlohmann::json::parse(o.out);
  const bool audit = cusched("audit --docs").exit_code == 0;
  EXPECT_EQ(v["audit"], audit);
  EXPECT_NE(cusched("--version").out.find(audit ? ", audit)" : ", no audit)"), std::string::npos);
}

}  // namespace
