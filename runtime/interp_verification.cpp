#include "runtime/interp_verification.h"

#include <algorithm>

#include "codegen/interpreter.h"
#include "codegen/lower.h"
#include "dsl/reference_eval.h"
#include "runtime/element_codec.h"
#include "runtime/input_generator.h"
#include "runtime/output_check.h"

namespace cusched::runtime {

nlohmann::json InterpVerification::to_json() const {
  nlohmann::json j = {{"verdict", verdict_name(verdict)},
                      {"message", message},
                      {"max_abs_err", max_abs_err},
                      {"max_rel_err", max_rel_err},
                      {"rel_l2_err", rel_l2_err},
                      {"trials", trials},
                      {"backend", "interp"}};
  if (verdict == Verdict::rejected) j["error"] = error.to_json();
  return j;
}

InterpVerification InterpVerification::from_json(const nlohmann::json& j) {
  InterpVerification v;
  v.verdict = verdict_from_name(j.value("verdict", "")).value_or(Verdict::internal_error);
  v.message = j.value("message", "");
  if (j.contains("error")) v.error = Error::from_json(j["error"]);
  v.max_abs_err = j.value("max_abs_err", 0.0);
  v.max_rel_err = j.value("max_rel_err", 0.0);
  v.rel_l2_err = j.value("rel_l2_err", 0.0);
  v.trials = j.value("trials", 0);
  return v;
}

InterpVerification verify_with_interpreter(const Problem& problem, const Schedule& schedule, const std::string& size,
                                           uint64_t seed, int seeds, bool strict) {
  InterpVerification out;
  LoweredProgram prog;
  try {
    prog = lower(schedule, problem.name);
  } catch (const UserError& e) {
    out.verdict = Verdict::rejected;
    out.error = e.error();
    out.message = "Lowering rejected the schedule: " + e.error().message;
    return out;
  }
  Tolerance tol;
  tol.atol = strict ? 1e-4 : problem.atol;
  tol.rtol = strict ? 1e-4 : problem.rtol;
  tol.rel_l2 = tol.rtol;
  tol.constant_reference = !problem.constant_output.empty();
  const SizeBindings& sizes = problem.size(size);
  int trials = seeds + 1;
  for (int t = 0; t < trials; ++t) {
    bool adversarial = t == seeds;
    bool any_adversarial = false;
    HostBuffers buffers, inputs;
    for (const auto& b : prog.buffers) {
      if (b.role == BufferRole::Input) {
        const ProblemInput* spec = nullptr;
        for (const auto& pi : problem.inputs)
          if (pi.name == b.name) spec = &pi;
        Distribution d = default_distribution(b.dtype);
        if (spec) {
          const InputDistribution& src = adversarial && spec->adversarial ? *spec->adversarial : spec->standard;
          any_adversarial |= adversarial && spec->adversarial.has_value();
          d.kind = src.kind;
          d.a = src.a;
          d.b = src.b;
        }
        auto bytes = generate_input(b, d, trial_seed(seed, t, b.name));
        std::vector<double> v(b.elements());
        for (int64_t i = 0; i < b.elements(); ++i)
          v[i] = load_element(b.dtype, bytes.data() + i * dtype_bytes(b.dtype));
        buffers[b.name] = v;
        inputs[b.name] = v;
      } else {
        std::vector<double> v(b.elements());
        fill_poison(DType::f64, v.data(), b.elements());
        buffers[b.name] = std::move(v);
      }
    }
    if (adversarial && !any_adversarial) break;
    try {
      interpret(prog, buffers);
    } catch (const UserError& e) {
      out.verdict = Verdict::rejected;
      out.error = e.error();
      out.message = "The interpreter stopped: " + e.error().message;
      return out;
    }
    ReferenceEvaluator ref(problem.pipeline, sizes, inputs);
    for (const auto& name : problem.pipeline.outputs()) {
      const auto& r = ref.values(name);
      OutputCheck rc = check_reference(name, r.data(), static_cast<int64_t>(r.size()), tol.constant_reference);
      if (rc.verdict != Verdict::ok) {
        out.verdict = rc.verdict;
        out.message = rc.message;
        return out;
      }
      const auto& c = buffers.at(name);
      OutputCheck oc = check_output(name, DType::f64, c.data(), r.data(), static_cast<int64_t>(r.size()), tol, true);
      out.max_abs_err = std::max(out.max_abs_err, oc.max_abs_err);
      out.max_rel_err = std::max(out.max_rel_err, oc.max_rel_err);
      out.rel_l2_err = std::max(out.rel_l2_err, oc.rel_l2_err);
      if (oc.verdict != Verdict::ok) {
        out.verdict = oc.verdict;
        out.message = oc.message + (adversarial ? " (adversarial inputs)" : "");
        out.trials = t + 1;
        return out;
      }
    }
    out.trials = t + 1;
  }
  out.verdict = Verdict::ok;
  out.message = "Matches the float64 evaluation on " + std::to_string(out.trials) + " input sets.";
  return out;
}

}  // namespace cusched::runtime
