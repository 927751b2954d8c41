#include "runtime/trial_plan.h"

#include <algorithm>
#include <filesystem>

#include "dsl/error.h"
#include "runtime/npy.h"

namespace cusched::runtime {

std::vector<const BufferSpec*> with_role(const KernelBundle& b, BufferRole role) {
  std::vector<const BufferSpec*> out;
  for (const auto& s : b.buffers)
    if (s.role == role) out.push_back(&s);
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

namespace {

const InputSpec* spec_for(const EvalRequest& req, const std::string& buffer) {
  for (const auto& in : req.inputs)
    if (in.buffer == buffer) return &in;
  return nullptr;
}

}  // namespace

std::vector<TrialPlan> plan_trials(const EvalRequest& req) {
  std::vector<TrialPlan> plans;
  if (!req.inputs_dir.empty()) plans.push_back({"inputs from " + req.inputs_dir, -2, false, true});
  for (int s = 0; s < std::max(3, req.seeds); ++s) plans.push_back({"seed " + std::to_string(s), s, false, false});
  bool any_adversarial =
      std::any_of(req.inputs.begin(), req.inputs.end(), [](const InputSpec& i) { return i.adversarial.has_value(); });
  if (any_adversarial) plans.push_back({"adversarial", 0, true, false});
  if (req.trial_limit > 0 && plans.size() > static_cast<size_t>(req.trial_limit))
    plans.resize(static_cast<size_t>(req.trial_limit));
  return plans;
}

size_t timing_trial(const std::vector<TrialPlan>& plans) {
  for (size_t t = 0; t < plans.size(); ++t)
    if (!plans[t].adversarial && !plans[t].from_dir) return t;
  return 0;
}

std::vector<InputSource> trial_input_sources(const EvalRequest& req, const TrialPlan& plan) {
  std::vector<InputSource> out;
  for (const auto* b : with_role(req.candidate, BufferRole::Input)) {
    InputSource src{b, "", {}, 0};
    const InputSpec* spec = spec_for(req, b->name);
    src.distribution = spec ? spec->standard : default_distribution(b->dtype);
    if (plan.adversarial && spec && spec->adversarial) src.distribution = *spec->adversarial;
    src.seed = trial_seed(req.base_seed, plan.adversarial ? -1 : plan.seed, b->name);
    if (plan.from_dir) {
      std::string path = req.inputs_dir + "/" + b->name + ".npy";
      if (std::filesystem::exists(path)) src.npy_path = path;
    }
    out.push_back(std::move(src));
  }
  return out;
}

std::vector<uint8_t> read_input_file(const InputSource& src) {
  NpyArray a = read_npy(src.npy_path);
  const BufferSpec& b = *src.buffer;
  if (a.dtype != b.dtype || a.shape != b.shape)
    fail("bad-npy",
         "The file " + src.npy_path + " holds " + dtype_name(a.dtype) + " " + shape_text(a.shape) + " but input '" +
             b.name + "' is " + dtype_name(b.dtype) + " " + shape_text(b.shape) + ".",
         "Save the input with the dtype and shape the problem declares.");
  return std::move(a.data);
}

}  // namespace cusched::runtime
