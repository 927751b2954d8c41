#pragma once
// Hand-written kernels added by steering (`cusched steer --add-kernel`): stored as
// candidates of the round that takes them, with an empty schedule, a hash "kernel-..."
// and the kernel's bundle as their artifacts, and judged by the rules of `cusched
// check`: the audit with the problem's contract, the precision scan, then verification
// and timing on a GPU. The interpreter runs schedules only, so on interpreter runs a
// kernel that passes the audit and the scan is stored as "no_gpu".
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "problems/problem.h"
#include "search/candidate_evaluation.h"
#include "search/store.h"

namespace cusched::search {

inline bool is_handwritten(const CandidateRecord& c) { return c.schedule_hash.rfind("kernel-", 0) == 0; }

// Stores the kernel of an add-kernel action's payload as a candidate of `round` under
// idea `idea`; returns the candidate's id and whether it is new to the run.
AddedCandidate add_kernel_candidate(Store& store, const Problem& problem, int64_t run, int64_t round, int64_t idea,
                                    const nlohmann::json& payload);

// The CPU part of a hand-written candidate, from its stored bundle: audit and precision
// scan. The verdict is left empty when the kernel is ready for the GPU.
CandidateOutcome prepare_kernel_candidate(const Problem& problem, const Store& store, const CandidateRecord& c,
                                          const EvalConfig& cfg);

}  // namespace cusched::search
