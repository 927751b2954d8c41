#pragma once
// What a person needs to act on a stalled search: the best candidate's share of the
// floor by bytes and by FLOPs, its resources (registers, spills, shared memory,
// occupancy) where ptxas reported them, the rejection reasons of the last rounds, and
// each idea tried with what it gained.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "problems/problem.h"
#include "search/stall.h"
#include "search/store.h"

namespace cusched::search {

// {"reason", "rounds": [first, last] (1-based), "best": {...} or null, "rejections": [...],
//  "ideas": [...]}. `finding` is the stall detected; `recent` rounds of rejections are listed.
nlohmann::json diagnose_stall(const Store& store, const Problem& problem, int64_t run, const StallFinding& finding,
                              int recent);

// The diagnosis as lines of text for the terminal.
std::string diagnosis_text(const nlohmann::json& diagnosis);

// The resources of a candidate's kernels from the ptxas report its GPU evaluation kept
// (registers, spills, static and dynamic shared memory, theoretical occupancy on an
// H200), or {"available": false, "why": ...}.
nlohmann::json candidate_resources(const Store& store, int64_t candidate);

}  // namespace cusched::search
