#include "codegen/arithmetic_share.h"

#include <algorithm>

namespace cusched {

namespace {

double reduction_work(const std::vector<std::shared_ptr<const FuncDef>>& stages, const SizeBindings& sizes) {
  double work = 0;
  for (const auto& f : stages)
    if (f->is_reduction())
      work += (f->is_sum_of_products() ? 2.0 : 1.0) * static_cast<double>(stage_points(*f, sizes)) *
              static_cast<double>(reduction_extent(*f, sizes));
  return work;
}

}  // namespace

double arithmetic_share(const ScheduleState& state) {
  const double declared = reduction_work(state.ctx.pipeline.stages(), state.ctx.sizes);
  if (declared <= 0) return 1.0;
  return std::clamp(reduction_work(state.stages, state.ctx.sizes) / declared, 0.0, 1.0);
}

}  // namespace cusched
