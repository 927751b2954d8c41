#pragma once
// The problem as the LLM prompt states it: the algorithm (each stage in the DSL's text
// form, producers first), every stage's loops by name with their extents at the run's
// size and at the bench size, inputs and outputs with dtypes and shapes, the baseline
// schedule, the tolerance, and how candidates are judged on this run (GPU timing with
// the L2 flushed, or the CPU interpreter and the cost model), with units.
#include <string>

#include "problems/problem.h"

namespace cusched::search {

struct PromptSetting {
  std::string backend = "gpu";  // "gpu" or "interp"
  std::string run_size;         // the size table candidates are verified (and their CUDA shown) at
};

// The "# Problem" section of the prompt.
std::string problem_brief(const Problem& problem, const PromptSetting& setting);

// How candidates are verified, timed or estimated, and in which units: one paragraph.
std::string judging_text(const Problem& problem, const PromptSetting& setting);

// The size table the run's timings and estimates refer to: the run's size on the GPU, the
// problem's default (bench) size on the interpreter, whose cost model estimates at it.
std::string judged_size(const Problem& problem, const PromptSetting& setting);

}  // namespace cusched::search
