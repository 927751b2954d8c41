// docs/problems.md is the generator's output (regenerate with
// `cusched problems --markdown > docs/problems.md`).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "problems/problem.h"
#include "problems/problem_reference.h"

namespace cusched {
namespace {

TEST(ProblemDocs, DocsProblemsMdIsNotStale) {
  std::ifstream in(std::string(CUSCHED_SOURCE_DIR) + "/docs/problems.md");
  ASSERT_TRUE(in.good()) << "docs/problems.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  std::string expected = problem_reference_markdown();
  if (text.str() != expected) {
    std::string written = std::string(CUSCHED_TEST_BINARY_DIR) + "/problems.md.expected";
    std::ofstream(written) << expected;
    FAIL() << "docs/problems.md is stale: run `cusched problems --markdown > docs/problems.md` "
              "(the expected text is in "
           << written << ").";
  }
}

TEST(ProblemDocs, ReferenceNamesEveryProblemAndItsContract) {
  std::string md = problem_reference_markdown();
  for (const auto& p : all_problems()) {
    EXPECT_NE(md.find("## " + p.name + "\n"), std::string::npos) << p.name;
    EXPECT_NE(md.find("`" + p.torch_semantics + "`"), std::string::npos) << p.name;
    EXPECT_NE(md.find("void " + p.name + "_kernel("), std::string::npos) << p.name;
  }
}

}  // namespace
}  // namespace cusched
