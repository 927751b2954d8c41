#pragma once
// Which inputs each verification trial of an evaluation uses: the seeded trials (at
// least three), the adversarial one where an input has an adversarial distribution, and
// a first trial from a folder of .npy files; and the host data of each.
#include <string>
#include <vector>

#include "runtime/candidate_buffers.h"
#include "runtime/evaluation.h"
#include "runtime/input_generator.h"

namespace cusched::runtime {

struct TrialPlan {
  std::string label;  // "seed 2", "adversarial", "inputs from DIR"
  int seed = 0;       // the trial_seed index: the seed, -1 adversarial, -2 inputs_dir
  bool adversarial = false;
  bool from_dir = false;
};

// The buffers of `b` with `role`, in the bundle's order.
std::vector<const BufferSpec*> with_role(const KernelBundle& b, BufferRole role);

// "(4, 5)": a shape as messages write it.
std::string shape_text(const std::vector<int64_t>& shape);

// The trials of `req`, in the order they run.
std::vector<TrialPlan> plan_trials(const EvalRequest& req);

// The trial whose inputs the timed runs use: the first seeded one.
size_t timing_trial(const std::vector<TrialPlan>& plans);

// Where one input of a trial comes from: the .npy file of the request's inputs_dir
// (npy_path, for a plan from_dir whose file exists), else `distribution` drawn with `seed`.
struct InputSource {
  const BufferSpec* buffer;
  std::string npy_path;
  Distribution distribution;
  uint64_t seed;
};
std::vector<InputSource> trial_input_sources(const EvalRequest& req, const TrialPlan& plan);

// The contents of src.npy_path; throws UserError ("bad-npy") where its dtype or shape is
// not the buffer's.
std::vector<uint8_t> read_input_file(const InputSource& src);

}  // namespace cusched::runtime
