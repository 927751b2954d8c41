// The automatic baseline of every built-in problem, and of every problem file in
// tests/problems/data/ and examples/, verifies in the CPU interpreter at
// the small size and at odd shapes: every size odd, each size in turn 1, and each size
// in turn past one block (257), so that guards, blocks smaller than their extent and
// single-point loops are all exercised. A shape at which the reference output is
// constant (a softmax over one column) says nothing about a schedule and is skipped.
#include "problems/automatic_baseline.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/problem.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"

namespace cusched {
namespace {

// Whether every stage extent and input dimension is positive at `sizes`.
bool well_formed(const Problem& p, const SizeBindings& sizes) {
  for (const auto& in : p.pipeline.inputs())
    for (int64_t d : eval_shape(in->shape, sizes))
      if (d <= 0) return false;
  for (const auto& f : p.pipeline.stages()) {
    for (const auto& e : f->extents)
      if (eval_int(e, sizes) <= 0) return false;
    if (f->is_reduction())
      for (const auto& r : f->body->rvars)
        if ((r.extent ? r.extent : eval_int(r.extent_expr, sizes)) <= 0) return false;
  }
  return true;
}

// The odd shapes to try: (label, bindings), each well formed.
std::vector<std::pair<std::string, SizeBindings>> odd_shapes(const Problem& p) {
  const SizeBindings& small = p.size("small");
  std::vector<std::pair<std::string, SizeBindings>> out;
  SizeBindings odd = small;
  for (auto& [name, v] : odd) v = v % 2 ? v + 2 : v + 1;
  out.emplace_back("every size odd", odd);
  for (const auto& [name, v] : small) {
    SizeBindings one = small, wide = small;
    one[name] = 1;
    wide[name] = 257;
    out.emplace_back(name + "=1", one);
    out.emplace_back(name + "=257", wide);
  }
  std::erase_if(out, [&](const auto& s) { return !well_formed(p, s.second); });
  return out;
}

// `p` at `sizes`, named "shape": an integer input drawn up to a size minus one (an index
// into that dimension, such as cross_entropy's targets) is drawn up to the new value
// minus one.
Problem at_shape(Problem p, const SizeBindings& sizes) {
  const SizeBindings& small = p.size("small");
  for (auto& in : p.inputs)
    if (in.standard.kind == "randint")
      for (const auto& [name, v] : small)
        if (in.standard.b == static_cast<double>(v - 1)) {
          in.standard.b = static_cast<double>(sizes.at(name) - 1);
          break;
        }
  p.sizes["shape"] = sizes;
  return p;
}

std::string describe(const SizeBindings& sizes) {
  std::string s;
  for (const auto& [name, v] : sizes) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(v);
  return s;
}

// A built-in problem by name, or a problem file by path.
Problem problem_named(const std::string& spec) {
  return spec.ends_with(".json") ? load_problem_file(spec) : find_problem(spec);
}

class AutomaticBaseline : public ::testing::TestWithParam<std::string> {};

TEST_P(AutomaticBaseline, VerifiesAtTheSmallSizeAndAtOddShapes) {
  const Problem problem = problem_named(GetParam());
  const nlohmann::json steps = automatic_baseline(problem.pipeline);
  auto shapes = odd_shapes(problem);
  shapes.insert(shapes.begin(), {"small", problem.size("small")});
  uint64_t seed = 1;
  int verified = 0;
  for (const auto& [label, sizes] : shapes) {
    SCOPED_TRACE(problem.name + " at " + label + " (" + describe(sizes) + ")");
    const Problem p = at_shape(problem, sizes);
    ValidationResult v = validate_schedule(p.context("shape"), steps);
    ASSERT_TRUE(v.ok) << v.error.code << ": " << v.error.message << "\n" << steps.dump();
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("shape"), steps), "shape", seed++, 1);
    if (r.verdict == cusched::runtime::Verdict::reference_degenerate && label != "small") continue;
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << "\n" << steps.dump();
    verified += r.verdict == cusched::runtime::Verdict::ok;
  }
  EXPECT_GE(verified, 3) << "too few shapes verified to say anything";
}

TEST_P(AutomaticBaseline, PutsEveryStageWithPointsOnBlocksAndReductionsAcrossThreads) {
  const Problem p = problem_named(GetParam());
  Schedule s = Schedule::from_json(p.context("small"), automatic_baseline(p.pipeline));
  for (const auto& f : p.pipeline.stages()) {
    SCOPED_TRACE(f->name);
    const StageSchedule& ss = s.state().stage(f->name);
    EXPECT_EQ(ss.location, ComputeLocation::Root);
    bool block = false, thread = false;
    for (const auto& [name, l] : ss.loops) {
      block |= is_block_axis(l.axis);
      thread |= is_thread_axis(l.axis);
    }
    if (!f->vars.empty()) {
      EXPECT_TRUE(block) << "no loop on a block axis";
    }
    if (f->is_reduction()) {
      EXPECT_FALSE(ss.cross_thread_loop.empty()) << "the reduction is not combined across threads";
      EXPECT_EQ(ss.loops.at(ss.cross_thread_loop).extent, kAutomaticBaselineThreads);
    } else if (!f->vars.empty()) {
      EXPECT_TRUE(thread) << "no loop on a thread axis";
    }
  }
}

std::vector<std::string> problem_names() {
  std::vector<std::string> names;
  for (const auto& p : all_problems()) names.push_back(p.name);
  for (const char* dir : {CUSCHED_SOURCE_DIR "/tests/problems/data", CUSCHED_SOURCE_DIR "/examples/problem-file-cli"})
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") names.push_back(e.path().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Problems, AutomaticBaseline, ::testing::ValuesIn(problem_names()), [](const auto& info) {
  return info.param.ends_with(".json") ? "file_" + std::filesystem::path(info.param).stem().string() : info.param;
});

TEST(AutomaticBaselineUse, AProblemWithoutSchedulesStartsFromIt) {
  Problem p = find_problem("softmax");
  p.baseline_schedule = nlohmann::json::array();
  p.best_schedule = nullptr;
  EXPECT_EQ(baseline_schedule_of(p), automatic_baseline(p.pipeline));
  EXPECT_EQ(best_schedule_of(p), automatic_baseline(p.pipeline));
  const Problem& own = find_problem("softmax");
  EXPECT_EQ(baseline_schedule_of(own), own.baseline_schedule);
  EXPECT_EQ(best_schedule_of(own), own.best_schedule);
}

TEST(ReferenceSchedule, KeepsReductionsSerialOnAFlatGrid) {
  const Problem& p = find_problem("softmax");
  Schedule s = reference_schedule(p.context("small"));
  for (const auto& f : p.pipeline.stages()) {
    const StageSchedule& ss = s.state().stage(f->name);
    EXPECT_TRUE(ss.cross_thread_loop.empty()) << f->name;
    EXPECT_EQ(ss.loops.at("flat_thread").axis, GpuAxis::ThreadX) << f->name;
    EXPECT_EQ(ss.loops.at("flat_block").axis, GpuAxis::BlockX) << f->name;
  }
}

// Per-channel BatchNorm statistics (level 1 #33: 64 channels over 64 x 512 x 512 elements
// at the bench size) get a block per channel in the reference, not one thread each; at
// the small size (90 elements each) they stay serial. Lowered as a candidate at a shape
// past the threshold (2 points of 131072), that reference schedule matches the CPU's
// float64 evaluation.
TEST(ReferenceSchedule, FewLongReductionsGetABlockPerPoint) {
  const Problem p =
      load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/level1/33_BatchNorm.json");
  auto cross_thread = [&](const ScheduleContext& ctx, const std::string& stage) {
    return !reference_schedule(ctx).state().stage(stage).cross_thread_loop.empty();
  };
  for (const char* stage : {"S", "Q"}) {
    EXPECT_TRUE(cross_thread(p.context("bench"), stage)) << stage;
    EXPECT_FALSE(cross_thread(p.context("small"), stage)) << stage;
  }
  const Problem wide = at_shape(p, {{"N", 2}, {"C", 2}, {"H", 256}, {"W", 256}});
  const ScheduleContext ctx = wide.context("shape");
  EXPECT_TRUE(cross_thread(ctx, "Q"));
  auto r = runtime::verify_with_interpreter(wide, reference_schedule(ctx), "shape", 3, 1);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
}

}  // namespace
}  // namespace cusched
