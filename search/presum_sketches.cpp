#include "search/presum_sketches.h"

#include "dsl/error.h"
#include "dsl/schedule.h"
#include "dsl/step_builder.h"
#include "search/sketch_steps.h"

namespace cusched::search {

namespace {

constexpr int64_t kThreads = 256;
constexpr int64_t kOperandParts = 64;

// Every stage of the schedule's state scheduled: `operand` (the summed operand) with one
// thread per point, other sums over kThreads or more elements a block per point, the rest
// flat grids.
nlohmann::json scheduled(const ScheduleContext& ctx, nlohmann::json steps, const std::string& operand) {
  const ScheduleState st = Schedule::from_json(ctx, steps).state();
  for (const auto& f : st.stages) {
    if (f->is_reduction() && f->name != operand && reduction_extent(*f, ctx.sizes) >= kThreads)
      block_per_point(steps, *f, kThreads);
    else
      flat_grid(steps, *f, kThreads, 1);
  }
  return steps;
}

}  // namespace

std::vector<Sketch> presum_sketches(const Problem& p) {
  std::vector<Sketch> out;
  const ScheduleContext ctx = p.context(p.default_size);
  for (const auto& f : p.pipeline.stages()) {
    if (!f->is_reduction() || f->body->reduce_op != ReduceOp::Sum || f->body->rvars.size() != 1) continue;
    try {
      const nlohmann::json first =
          Schedule::from_json(ctx, nlohmann::json::array({schedule_step("presum", f->name)})).steps();
      const std::string operand = first[0]["name"], j = f->body->rvars[0].name;
      const std::string taken = "the sum of " + f->name + " over " + j +
                                " taken through the contraction it sums into its operand (presum), as " + operand;
      const std::string rest = ", then each sum over " + std::to_string(kThreads) +
                               " or more elements one block per point, the rest flat grids";
      nlohmann::json split = first;
      split.push_back(schedule_step("split", operand, {{"loop", j}, {"parts", kOperandParts}}));
      split.push_back(schedule_step("rfactor", operand, {{"loop", j + "o"}}));
      try {
        out.push_back({taken + " in " + std::to_string(kOperandParts) + " parts (rfactor), one thread per point" + rest,
                       scheduled(ctx, split, "")});
      } catch (const UserError&) {
        // The parts do not divide the sum at this size: the serial sketch below remains.
      }
      out.push_back({taken + " with one thread per point" + rest, scheduled(ctx, first, operand)});
    } catch (const UserError&) {
      // presum does not apply to this stage.
    }
  }
  return out;
}

}  // namespace cusched::search
