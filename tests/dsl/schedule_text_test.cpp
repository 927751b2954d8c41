// The one-line-per-step text form: parsing, printing and its errors.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

Error text_error(const ScheduleContext& ctx, const std::string& text) {
  try {
    Schedule::from_text(ctx, text);
  } catch (const UserError& e) {
    return e.error();
  }
  ADD_FAILURE() << "the text should be rejected:\n" << text;
  return {};
}

TEST(ScheduleText, ParsesTheSameStepsAsJson) {
  const std::string text =
      "# a 16x8 tile per block\n"
      "split stage=C loop=k factor=8\n"
      "\n"
      "tile stage=C x=i y=j x_factor=16 y_factor=8   # four loops\n"
      "reorder loops=io,jo,ko,ii,ji,ki\n"
      "cache_read stage=C source=B scope=shared at=ko swizzle=true\n"
      "bind loop=ji axis=threadIdx.x\n";
  Schedule t = Schedule::from_text(problem_context("matmul"), text);
  Schedule j = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 8},
    {"op": "reorder", "loops": ["io", "jo", "ko", "ii", "ji", "ki"]},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "swizzle": true},
    {"op": "bind", "loop": "ji", "axis": "threadIdx.x"}])"));
  EXPECT_EQ(t.to_json(), j.to_json());
  EXPECT_EQ(state_digest(t.state()), state_digest(j.state()));
  EXPECT_TRUE(t.state().stage("C").cache_reads.at(0).swizzle);
}

TEST(ScheduleText, PrintsOneLinePerStepInDeclarationOrder) {
  Schedule s = build(vector_add_context(), json::parse(R"([
    {"inner": "t", "factor": 32, "loop": "i", "op": "split", "stage": "C"},
    {"op": "bind", "loop": "io", "axis": "blockIdx.x"}])"));
  EXPECT_EQ(s.to_text(),
            "split stage=C loop=i factor=32 outer=io inner=t\n"
            "bind stage=C loop=io axis=blockIdx.x\n");
}

TEST(ScheduleText, EmptyTextIsAnEmptySchedule) {
  Schedule s = Schedule::from_text(vector_add_context(), "\n   \n# nothing\n");
  EXPECT_TRUE(s.steps().empty());
  EXPECT_EQ(s.to_text(), "");
}

TEST(ScheduleTextErrors, WordWithoutKeyValue) {
  Error e = text_error(vector_add_context(), "split stage=C loop=i 4\n");
  EXPECT_EQ(e.code, "bad-text-step");
  EXPECT_EQ(e.step, 0);
  EXPECT_EQ(e.op, "split");
  Error empty_key = text_error(vector_add_context(), "split stage=C loop=i =4\n");
  EXPECT_EQ(empty_key.code, "bad-text-step");
}

TEST(ScheduleTextErrors, StepIndexSkipsCommentsAndBlankLines) {
  Error e = text_error(vector_add_context(),
                       "# header\n"
                       "split stage=C loop=i factor=64\n"
                       "\n"
                       "bind loop=io axis=blockIdx.x\n"
                       "bind loop=nope axis=threadIdx.x\n");
  EXPECT_EQ(e.code, "unknown-loop");
  EXPECT_EQ(e.step, 2);
  EXPECT_EQ(e.op, "bind");
}

TEST(ScheduleTextErrors, ValuesAreCheckedLikeJson) {
  EXPECT_EQ(text_error(vector_add_context(), "split stage=C loop=i factor=four\n").code, "mistyped-argument");
  EXPECT_EQ(text_error(vector_add_context(), "split stage=C loop=i factor=4x\n").code, "mistyped-argument");
  EXPECT_EQ(text_error(vector_add_context(), "split stage=C loop=i factor=99999999999999999999999\n").code,
            "mistyped-argument");
  EXPECT_EQ(text_error(problem_context("matmul"),
                       "split stage=C loop=k factor=8\ncache_read stage=C source=A scope=shared at=ko swizzle=yes\n")
                .code,
            "mistyped-argument");
  EXPECT_EQ(text_error(vector_add_context(), "vectorise stage=C loop=i\n").code, "unknown-op");
  EXPECT_EQ(text_error(vector_add_context(), "split stage=C loop=i factor=4 ways=2\n").code, "unknown-argument");
  EXPECT_EQ(text_error(vector_add_context(), "split stage=C loop=i\n").code, "missing-argument");
  EXPECT_EQ(text_error(problem_context("matmul"), "reorder stage=C loops=i,,j\n").code, "mistyped-argument");
}

}  // namespace
}  // namespace cusched::testing
