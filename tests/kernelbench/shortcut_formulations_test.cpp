// The adversarial trial of a KernelBench file is what rejects the classic numerical
// shortcut of its computation. Each case pairs a file with a formulation of the same
// function that takes the shortcut (tests/kernelbench/shortcuts/*.json): the shortcut's
// automatic baseline runs in the CPU interpreter (f32 arithmetic, as on the GPU) on the
// inputs of the file's verification trials and is judged against the file's float64
// reference at the file's tolerance, as verification judges a candidate. It passes on
// the three seeded trials of the standard distribution and fails on the adversarial one.
#include <filesystem>

#include <gtest/gtest.h>

#include "codegen/interpreter.h"
#include "codegen/lower.h"
#include "dsl/reference_eval.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/element_codec.h"
#include "runtime/input_generator.h"
#include "runtime/output_check.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

namespace fs = std::filesystem;

struct Judgement {
  runtime::Verdict verdict = runtime::Verdict::internal_error;
  std::string message;
};

// Runs `shortcut` on the inputs of trial `trial` of `honest` (the adversarial
// distributions when `adversarial`) and judges its outputs against `honest`'s reference.
Judgement judge(const Problem& honest, const Problem& shortcut, int trial, bool adversarial, uint64_t seed = 1) {
  const ScheduleContext ctx = shortcut.context("small");
  const LoweredProgram prog = lower(Schedule::from_json(ctx, baseline_schedule_of(shortcut)), shortcut.name);
  HostBuffers buffers, inputs;
  for (const auto& b : prog.buffers) {
    std::vector<double> v(static_cast<size_t>(b.elements()));
    if (b.role == BufferRole::Input) {
      const ProblemInput* spec = nullptr;
      for (const auto& in : honest.inputs)
        if (in.name == b.name) spec = &in;
      EXPECT_NE(spec, nullptr) << "the shortcut reads '" << b.name << "', an input the file does not have";
      if (!spec) return {};
      const InputDistribution& src = adversarial && spec->adversarial ? *spec->adversarial : spec->standard;
      runtime::Distribution d;
      d.kind = src.kind;
      d.a = src.a;
      d.b = src.b;
      const auto bytes = runtime::generate_input(b, d, runtime::trial_seed(seed, trial, b.name));
      for (int64_t i = 0; i < b.elements(); ++i)
        v[static_cast<size_t>(i)] = runtime::load_element(b.dtype, bytes.data() + i * dtype_bytes(b.dtype));
      inputs[b.name] = v;
    } else {
      std::fill(v.begin(), v.end(), std::nan(""));
    }
    buffers[b.name] = std::move(v);
  }
  interpret(prog, buffers);
  ReferenceEvaluator ref(honest.pipeline, honest.size("small"), inputs);
  runtime::Tolerance tol;
  tol.atol = honest.atol;
  tol.rtol = honest.rtol;
  tol.rel_l2 = honest.rtol;
  for (const auto& name : honest.pipeline.outputs()) {
    const auto& r = ref.values(name);
    const auto& c = buffers.at(name);
    EXPECT_EQ(c.size(), r.size()) << name;
    runtime::OutputCheck rc = runtime::check_reference(name, r.data(), static_cast<int64_t>(r.size()), false);
    if (rc.verdict != runtime::Verdict::ok) return {rc.verdict, rc.message};
    runtime::OutputCheck oc =
        runtime::check_output(name, DType::f64, c.data(), r.data(), static_cast<int64_t>(r.size()), tol, true);
    if (oc.verdict != runtime::Verdict::ok) return {oc.verdict, oc.message};
  }
  return {runtime::Verdict::ok, ""};
}

struct ShortcutCase {
  const char* file;      // under problems/kernelbench/
  const char* shortcut;  // under tests/kernelbench/shortcuts/
};

class ShortcutFormulation : public ::testing::TestWithParam<ShortcutCase> {};

TEST_P(ShortcutFormulation, PassesTheStandardTrialsAndFailsTheAdversarialOne) {
  const Problem honest =
      load_problem_file((fs::path(source_tree()) / "problems" / "kernelbench" / GetParam().file).string());
  const Problem shortcut = load_problem_file(
      (fs::path(source_tree()) / "tests" / "kernelbench" / "shortcuts" / GetParam().shortcut).string());
  ASSERT_EQ(honest.size("small"), shortcut.size("small")) << "the shortcut is for the file's small size";
  bool has_adversarial = false;
  for (const auto& in : honest.inputs) has_adversarial |= in.adversarial.has_value();
  ASSERT_TRUE(has_adversarial) << GetParam().file << " declares no adversarial distribution";
  for (int trial = 0; trial < 3; ++trial) {
    const Judgement j = judge(honest, shortcut, trial, false);
    EXPECT_EQ(j.verdict, runtime::Verdict::ok) << "seed " << trial << ": " << j.message;
  }
  // The trial index of the adversarial trial, as runtime/interp_verification.cpp draws it.
  for (uint64_t seed : {1, 2, 3}) {
    const Judgement j = judge(honest, shortcut, 3, true, seed);
    EXPECT_TRUE(j.verdict == runtime::Verdict::wrong_output || j.verdict == runtime::Verdict::nan_or_inf)
        << "seed " << seed << ": " << runtime::verdict_name(j.verdict) << " " << j.message;
  }
}

std::string case_name(const ::testing::TestParamInfo<ShortcutCase>& info) {
  std::string s = fs::path(info.param.shortcut).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Shortcuts, ShortcutFormulation,
    ::testing::Values(ShortcutCase{"level1/23_Softmax.json", "softmax_without_max.json"},
                      ShortcutCase{"level1/40_LayerNorm.json", "layernorm_variance_from_moments.json"},
                      ShortcutCase{"level1/47_Sum_reduction_over_a_dimension.json", "sum_of_bf16_inputs.json"}),
    case_name);

}  // namespace
}  // namespace cusched
