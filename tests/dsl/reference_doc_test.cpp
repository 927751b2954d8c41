// docs/primitives.md is the registry's reference, regenerated with
// `cusched primitives > docs/primitives.md`; this test fails when it is stale.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "dsl/schedule.h"

namespace cusched {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TEST(PrimitiveReference, CheckedInCopyIsCurrent) {
  std::string path = std::string(CUSCHED_SOURCE_DIR) + "/docs/primitives.md";
  std::string checked_in = read_file(path);
  ASSERT_FALSE(checked_in.empty()) << path << " is missing; run `cusched primitives > docs/primitives.md`";
  EXPECT_TRUE(checked_in == primitive_reference_markdown())
      << path << " differs from the registry; run `cusched primitives > docs/primitives.md`";
}

TEST(PrimitiveReference, DocumentsEveryPrimitiveAndArgument) {
  std::string md = primitive_reference_markdown();
  for (const auto& p : primitives()) {
    EXPECT_NE(md.find("\n## " + p.name + "\n"), std::string::npos) << p.name;
    EXPECT_NE(md.find(p.example), std::string::npos) << p.name;
    for (const auto& a : p.args)
      EXPECT_NE(md.find("| `" + a.name + "` |"), std::string::npos) << p.name << "." << a.name;
  }
}

TEST(PrimitiveReference, EachExampleIsAWellFormedStep) {
  for (const auto& p : primitives()) {
    nlohmann::json step = nlohmann::json::parse(p.example);
    EXPECT_EQ(step["op"], p.name);
    try {
      normalize_step(step);
    } catch (const UserError& e) {
      ADD_FAILURE() << p.name << ": " << e.error().to_string();
    }
    EXPECT_FALSE(p.before.empty());
    EXPECT_FALSE(p.after.empty());
  }
}

}  // namespace
}  // namespace cusched
