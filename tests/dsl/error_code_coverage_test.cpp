// Keeps the error catalogue honest: every error code raised by the schedule
// language has a test in this folder that triggers it; every code raised anywhere in
// dsl/ and codegen/ (the legality of a schedule, lowering, the emitter, the
// interpreter) has a test under tests/ that triggers it (a test source, or the
// legality corpus's manifest); docs/schedules.md documents every code that the
// algorithm language, the schedule language, the problem lookup and the tools'
// schedule loading raise, and docs/ documents every codegen code.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
const std::string kRoot = CUSCHED_SOURCE_DIR;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<fs::path> sources_under(const std::string& dir, bool recursive) {
  std::vector<fs::path> out;
  auto take = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && e.path().extension() == ".cpp") out.push_back(e.path());
  };
  if (recursive)
    for (const auto& e : fs::recursive_directory_iterator(kRoot + "/" + dir)) take(e);
  else
    for (const auto& e : fs::directory_iterator(kRoot + "/" + dir)) take(e);
  return out;
}

// Codes raised with fail("code", ...), Error{..., "code", ...}, err.code = "code", or a
// whole-schedule rule's refuse(step, "code", ...).
std::set<std::string> codes_in(const std::vector<fs::path>& files) {
  static const std::regex raised(
      R"re((?:fail\(|err\.code = |Error \w+\{\w+, \w+, |refuse\([^;"]*, )"([a-z0-9]+(?:-[a-z0-9]+)*)")re");
  std::set<std::string> out;
  for (const auto& f : files) {
    std::string text = read_file(f);
    for (std::sregex_iterator it(text.begin(), text.end(), raised), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

std::string test_sources() {
  std::string all;
  for (const auto& e : fs::directory_iterator(kRoot + "/tests/dsl"))
    if (e.path().filename().string().find("_test.cpp") != std::string::npos &&
        e.path().filename() != "error_code_coverage_test.cpp")
      all += read_file(e.path());
  return all;
}

TEST(ErrorCodes, EveryScheduleErrorHasATest) {
  std::vector<fs::path> files = sources_under("dsl/primitives", false);
  for (const char* f : {"dsl/schedule_json.cpp", "dsl/schedule.cpp", "dsl/schedule_text.cpp", "dsl/schedule_state.cpp",
                        "dsl/primitive_registry.cpp"})
    files.push_back(kRoot + "/" + f);
  std::set<std::string> codes = codes_in(files);
  ASSERT_GT(codes.size(), 40u) << "the scan found too few codes; has the error style changed?";
  std::string tests = test_sources();
  for (const auto& c : codes) {
    if (c == "bad-argument") continue;  // raised only if the registry's type checks miss a case
    EXPECT_NE(tests.find("\"" + c + "\""), std::string::npos) << "no test in tests/dsl triggers " << c;
  }
}

// Every test source under tests/ and the legality corpus's manifest, which names the
// code each of its schedules raises.
std::string all_test_sources() {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(kRoot + "/tests")) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || e.path().filename() == "error_code_coverage_test.cpp") continue;
    if (ext == ".cpp" || ext == ".h") all += read_file(e.path());
  }
  return all + read_file(kRoot + "/tests/legality/manifest.json");
}

// Codes no test can raise: each guards an invariant that the code before it keeps.
const std::set<std::string> kUnreachable = {
    "bad-argument",    // the registry's type checks let no unreadable argument through
    "internal-error",  // the interpreter dispatches each statement kind to its own mode
};

TEST(ErrorCodes, EveryDslAndCodegenErrorHasATest) {
  std::vector<fs::path> files = sources_under("dsl", true);
  for (const auto& f : sources_under("codegen", true)) files.push_back(f);
  std::set<std::string> codes = codes_in(files);
  ASSERT_GT(codes.size(), 140u) << "the scan found too few codes; has the error style changed?";
  const std::string tests = all_test_sources();
  for (const auto& c : codes) {
    if (kUnreachable.count(c)) continue;
    EXPECT_NE(tests.find("\"" + c + "\""), std::string::npos) << "no test under tests/ triggers " << c;
  }
}

TEST(ErrorCodes, EveryCodegenCodeIsDocumented) {
  std::set<std::string> codes = codes_in(sources_under("codegen", true));
  std::string docs;
  for (const char* d : {"docs/schedules.md", "docs/lowering.md", "docs/codegen.md", "docs/interpreter.md"})
    docs += read_file(kRoot + "/" + d);
  for (const auto& c : codes) EXPECT_NE(docs.find("`" + c + "`"), std::string::npos) << "docs/ does not list " << c;
}

TEST(ErrorCodes, EveryCodeIsDocumented) {
  std::vector<fs::path> files = sources_under("dsl/primitives", false);
  for (const auto& f : sources_under("dsl/legality", false)) files.push_back(f);
  for (const char* f : {"dsl/expr.cpp", "dsl/func.cpp", "dsl/var.cpp", "dsl/pipeline.cpp", "dsl/schedule.cpp",
                        "dsl/schedule_json.cpp", "dsl/schedule_text.cpp", "dsl/schedule_state.cpp",
                        "dsl/primitive_registry.cpp", "tools/schedule_source.cpp", "problems/problem.cpp"})
    files.push_back(kRoot + "/" + f);
  std::set<std::string> codes = codes_in(files);
  std::string doc = read_file(kRoot + "/docs/schedules.md");
  ASSERT_FALSE(doc.empty()) << "docs/schedules.md is missing";
  for (const auto& c : codes)
    EXPECT_NE(doc.find("`" + c + "`"), std::string::npos) << "docs/schedules.md does not list " << c;
}

}  // namespace
