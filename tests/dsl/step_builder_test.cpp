// schedule_step: typed C++ steps checked against the primitive registry.
#include "dsl/step_builder.h"

#include <functional>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "dsl/schedule.h"

namespace cusched {
namespace {

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.error().code;
  }
  return "";
}

TEST(StepBuilder, BuildsTheJsonStepAUserWouldWrite) {
  nlohmann::json step = schedule_step("split", "C", {{"loop", "i"}, {"factor", 64}, {"outer", "io"}, {"inner", "ii"}});
  EXPECT_EQ(step, nlohmann::json::parse(
                      R"({"op": "split", "stage": "C", "loop": "i", "factor": 64, "outer": "io", "inner": "ii"})"));
}

TEST(StepBuilder, CarriesEveryArgumentType) {
  int64_t pad = 4;
  std::vector<std::string> loops = {"io", "ko", "ii"};
  EXPECT_EQ(
      schedule_step("cache_read", "C",
                    {{"source", "A"}, {"scope", "shared"}, {"at", "ko"}, {"pad", pad}, {"swizzle", true}}),
      nlohmann::json::parse(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 4, "swizzle": true})"));
  EXPECT_EQ(schedule_step("reorder", "C", {{"loops", loops}})["loops"], nlohmann::json(loops));
  EXPECT_EQ(schedule_step("reorder", "C", {{"loops", {"ko", "io"}}})["loops"],
            nlohmann::json::parse(R"(["ko", "io"])"));
}

TEST(StepBuilder, LeavesOutAnEmptyStageAndArgumentsNotGiven) {
  nlohmann::json step = schedule_step("unroll", "", {{"loop", "k"}});
  EXPECT_EQ(step, nlohmann::json::parse(R"({"op": "unroll", "loop": "k"})"));
  EXPECT_EQ(schedule_step("compute_inline", "A"), nlohmann::json::parse(R"({"op": "compute_inline", "stage": "A"})"));
}

TEST(StepBuilder, RefusesWhatTheRegistryRefuses) {
  EXPECT_EQ(code_of([] { schedule_step("frobnicate", "C"); }), "unknown-op");
  EXPECT_EQ(code_of([] { schedule_step("split", "C", {{"loop", "i"}, {"factor", 4}, {"size", 4}}); }),
            "unknown-argument");
  EXPECT_EQ(code_of([] { schedule_step("split", "C", {{"loop", "i"}, {"factor", "four"}}); }), "mistyped-argument");
  EXPECT_EQ(code_of([] { schedule_step("bind", "C", {{"loop", "i"}, {"axis", "blockIdx.w"}}); }), "bad-choice");
  EXPECT_EQ(code_of([] { schedule_step("split", "C", {{"factor", 4}}); }), "missing-argument");
  EXPECT_EQ(code_of([] { schedule_step("split", "C", {{"loop", "i"}, {"factor", 4}, {"parts", 2}}); }),
            "conflicting-arguments");
}

}  // namespace
}  // namespace cusched
