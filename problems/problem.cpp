#include "problems/problem.h"

#include "dsl/error.h"

namespace cusched {

double Problem::written_bytes(const SizeBindings& s) const {
  double bytes = 0;
  for (const auto& out : pipeline.outputs()) {
    const FuncDef* f = pipeline.find_stage(out);
    double n = dtype_bytes(f->dtype);
    for (const auto& e : f->extents) n *= static_cast<double>(eval_int(e, s));
    bytes += n;
  }
  return bytes;
}

double Problem::min_bytes(const SizeBindings& s) const {
  double bytes = 0;
  for (const auto& in : pipeline.inputs()) {
    double n = dtype_bytes(in->dtype);
    for (auto d : eval_shape(in->shape, s)) n *= static_cast<double>(d);
    bytes += n;
  }
  return bytes + written_bytes(s);
}

const SizeBindings& Problem::size(const std::string& which) const {
  auto it = sizes.find(which);
  if (it == sizes.end())
    fail("unknown-size", "Problem '" + name + "' has no size named '" + which + "'.", "Use --size small or --size bench.");
  return it->second;
}

ScheduleContext Problem::context(const std::string& size_name, bool strict) const {
  ScheduleContext c;
  c.pipeline = pipeline;
  c.sizes = size(size_name);
  c.atol = strict ? 1e-4 : atol;
  c.rtol = strict ? 1e-4 : rtol;
  return c;
}

const Problem& find_problem(const std::string& name) {
  std::string names;
  for (const auto& p : all_problems()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  fail("unknown-problem", "There is no problem named '" + name + "'.", "Use one of: " + names + " (see `cusched problems`).");
}

}  // namespace cusched
