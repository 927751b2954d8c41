#include "problems/problem_json.h"

#include "dsl/error.h"

namespace cusched {

nlohmann::json distribution_json(const InputDistribution& d) { return {{"kind", d.kind}, {"a", d.a}, {"b", d.b}}; }

const ProblemInput& problem_input(const Problem& p, const std::string& name) {
  for (const auto& in : p.inputs)
    if (in.name == name) return in;
  fail("unknown-input", "Problem '" + p.name + "' has no input named '" + name + "'.",
       "Use one of the names its pipeline reads (see `cusched problems --json`).");
}

nlohmann::json inputs_json(const Problem& p, const std::string& size_name) {
  const SizeBindings& s = p.size(size_name);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : p.pipeline.inputs()) {
    const ProblemInput& in = problem_input(p, t->name);
    out.push_back({{"name", t->name},
                   {"dtype", dtype_name(t->dtype)},
                   {"shape", eval_shape(t->shape, s)},
                   {"distribution", distribution_json(in.standard)},
                   {"adversarial", in.adversarial ? distribution_json(*in.adversarial) : nlohmann::json()}});
  }
  return out;
}

nlohmann::json outputs_json(const Problem& p, const std::string& size_name) {
  const SizeBindings& s = p.size(size_name);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : p.pipeline.outputs()) {
    const FuncDef* f = p.pipeline.find_stage(name);
    out.push_back({{"name", name}, {"dtype", dtype_name(f->dtype)}, {"shape", eval_shape(f->extents, s)}});
  }
  return out;
}

}  // namespace cusched
