// On the GPU: every math function of the language, in its precise form and in its fast
// form (precision math "fast"), stays within the strict tolerance (1e-4) of the float64
// reference on ordinary inputs, through the search's candidate evaluation (fresh inputs,
// poisoned outputs, the device-side comparison). Skips without a CUDA driver.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/math_function.h"
#include "problems/automatic_baseline.h"
#include "problems/baseline_steps.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"

namespace cusched {
namespace {

// Y(i, j) = f(X(i, j)) over 64 x 1000 inputs drawn from `inputs`.
Problem one_function(const MathFunction& m, InputDistribution inputs) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  std::vector<Expr> args = {X(i, j)};
  if (m.params.size() == 3) args = {X(i, j), make_float(-1.5), make_float(2.0)};
  Problem p;
  p.name = std::string("math_") + m.name;
  p.title = m.meaning;
  p.pipeline = Pipeline({compute("Y", {i, j}, math_call(m.name, args))});
  p.sizes = {{"small", {{"R", 64}, {"D", 1000}}}};
  p.default_size = "small";
  p.inputs = {{"X", inputs, std::nullopt}};
  return p;
}

// Ordinary inputs of each function: its domain, both sides of softplus's threshold,
// several periods of sin and cos.
InputDistribution ordinary_inputs(const std::string& fn) {
  if (fn == "log" || fn == "sqrt" || fn == "rsqrt") return {"uniform", 0.01, 10};
  if (fn == "log1p") return {"uniform", -0.9, 10};
  if (fn == "softplus") return {"normal", 0, 12};
  if (fn == "sin" || fn == "cos") return {"normal", 0, 10};
  return {"normal", 0, 4};
}

TEST(GpuMathFunctions, PreciseAndFastFormsMeetTheStrictTolerance) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  search::EvalConfig cfg;
  cfg.backend = "gpu";
  cfg.size = "small";
  cfg.strict = true;
  cfg.time_it = false;
  cfg.audit = false;
  cfg.check_bench = false;
  for (const auto& m : math_functions()) {
    Problem p = one_function(m, ordinary_inputs(m.name));
    nlohmann::json base = automatic_baseline(p.pipeline);
    for (bool fast : {false, true}) {
      nlohmann::json steps = fast ? concat_steps({base, fast_math_steps({"Y"})}) : base;
      for (uint64_t seed : {1, 2}) {
        cfg.seed = seed;
        search::CandidateOutcome out = search::evaluate_candidate(p, steps, cfg, &worker);
        EXPECT_EQ(out.verdict_text(), "ok")
            << m.name << (fast ? " fast" : " precise") << ", seed " << seed << ": " << out.reason;
      }
    }
  }
}

}  // namespace
}  // namespace cusched
