// docs/problem-files.md lists every error code that the expression parser, the problem
// file reader and the command line's problem and shape resolution raise.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(std::string(CUSCHED_SOURCE_DIR) + "/" + path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TEST(ProblemFileDocs, EveryErrorCodeIsDocumented) {
  static const std::regex raised(R"re((?:fail|error)\([^;]*?"([a-z0-9]+(?:-[a-z0-9]+)+)")re");
  std::set<std::string> codes;
  for (const char* f : {"dsl/expr_text_parse.cpp", "problems/problem_file.cpp", "tools/problem_source.cpp"}) {
    std::string text = read_source(f);
    ASSERT_FALSE(text.empty()) << f;
    for (std::sregex_iterator it(text.begin(), text.end(), raised), end; it != end; ++it) codes.insert((*it)[1]);
  }
  ASSERT_GT(codes.size(), 25u) << "the scan found too few codes; has the error style changed?";
  std::string doc = read_source("docs/problem-files.md");
  ASSERT_FALSE(doc.empty()) << "docs/problem-files.md is missing";
  for (const auto& c : codes)
    EXPECT_NE(doc.find("`" + c + "`"), std::string::npos) << "docs/problem-files.md does not list " << c;
}

}  // namespace
