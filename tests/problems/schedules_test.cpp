// Every problem's built-in schedules are legal at both sizes and run in parallel.
#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/problem.h"

namespace cusched {
namespace {

TEST(ProblemSchedules, BaselineAndBestValidateAtBothSizes) {
  for (const auto& p : all_problems()) {
    for (const char* size : {"small", "bench"}) {
      for (const auto* steps : {&p.baseline_schedule, &p.best_schedule}) {
        SCOPED_TRACE(p.name + " at " + size);
        ASSERT_TRUE(steps->is_array());
        ValidationResult r = validate_schedule(p.context(size), *steps);
        EXPECT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
      }
    }
  }
}

TEST(ProblemSchedules, BaselineBindsEveryStageToBlocksAndThreads) {
  for (const auto& p : all_problems()) {
    Schedule s = Schedule::from_json(p.context("bench"), p.baseline_schedule);
    for (const auto& stage : p.pipeline.stages()) {
      SCOPED_TRACE(p.name + " stage " + stage->name);
      int64_t points = 1;
      for (const auto& e : stage->extents) points *= eval_int(e, p.size("bench"));
      bool block = false, thread = false;
      for (const auto& [name, l] : s.state().stage(stage->name).loops) {
        block |= is_block_axis(l.axis);
        thread |= is_thread_axis(l.axis);
      }
      EXPECT_TRUE(block) << "no loop bound to a block axis";
      // Only single-point stages (scalar losses) may run in one thread.
      if (points > 1) {
        EXPECT_TRUE(thread) << "no loop bound to a thread axis";
      }
    }
  }
}

TEST(ProblemSchedules, StrictToleranceAcceptsTheFp32Baselines) {
  for (const auto& p : all_problems()) {
    ValidationResult r = validate_schedule(p.context("small", true), p.baseline_schedule);
    EXPECT_TRUE(r.ok) << p.name << ": " << r.error.code;
  }
}

}  // namespace
}  // namespace cusched
