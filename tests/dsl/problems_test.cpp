// The problem set's built-in schedules are legal at both sizes and replay; the
// problem lookups answer with structured errors.
#include "problems/problem.h"
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

TEST(Problems, BuiltInSchedulesAreLegalAndReplay) {
  ASSERT_GE(all_problems().size(), 3u);
  for (const auto& p : all_problems()) {
    for (const char* size : {"small", "bench"}) {
      for (const json* steps : {&p.baseline_schedule, &p.best_schedule}) {
        SCOPED_TRACE(p.name + " at " + size);
        ASSERT_TRUE(steps->is_array());
        Schedule s = build(p.context(size), *steps);
        EXPECT_EQ(s.steps().size(), steps->size());
      }
    }
  }
}

TEST(Problems, EveryOutputIsBoundToTheGridInTheBaseline) {
  for (const auto& p : all_problems()) {
    Schedule s = build(p.context("small"), p.baseline_schedule);
    for (const auto& out : p.pipeline.outputs()) {
      bool block = false;
      for (const auto& [name, l] : s.state().stage(out).loops) block |= is_block_axis(l.axis);
      EXPECT_TRUE(block) << p.name << ": output " << out << " has no block-bound loop";
    }
  }
}

TEST(Problems, ContextsCarryTheToleranceAndSizes) {
  const Problem& m = find_problem("matmul");
  ScheduleContext normal = m.context("small");
  ScheduleContext strict = m.context("small", true);
  EXPECT_EQ(normal.atol, m.atol);
  EXPECT_EQ(normal.rtol, m.rtol);
  EXPECT_EQ(strict.atol, 1e-4);
  EXPECT_EQ(strict.rtol, 1e-4);
  EXPECT_EQ(normal.sizes.at("M"), 64);
  EXPECT_EQ(m.context("bench").sizes.at("M"), 4096);
  EXPECT_EQ(m.min_bytes({{"M", 2}, {"N", 3}, {"K", 4}}), 4.0 * (2 * 4 + 4 * 3 + 2 * 3));
}

TEST(ProblemErrors, UnknownProblemAndSize) {
  try {
    find_problem("conv9d");
    FAIL() << "expected unknown-problem";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unknown-problem");
    EXPECT_NE(e.error().hint.find("matmul"), std::string::npos);
  }
  try {
    find_problem("matmul").context("huge");
    FAIL() << "expected unknown-size";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unknown-size");
  }
}

}  // namespace
}  // namespace cusched::testing
