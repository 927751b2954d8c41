#pragma once
// The report's sections for the reviewer and the engineer: the goal and when it was
// met, the stalls and their diagnoses, the steering actions, the reviews, the ideas
// that produced no candidate, and the note that a CPU-only run's sources are small-size
// and its costs estimates. HTML fragments, each a <section> with a stable id.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "search/store.h"

namespace cusched::search {

// The steps on one line: `op stage=S loop=L arg=value ...` per step (the other
// arguments by name), the steps separated by " ; ".
std::string schedule_one_line(const nlohmann::json& steps);

// On an interp run: the note that the sources shown (lowered at `shown_size`) are not
// the bench size's unless asked for, and that every time is a cost estimate.
std::string render_cpu_only_note(const RunInfo& run, const std::string& shown_size);
std::string render_goal_section(const Store& store, const RunInfo& run);
std::string render_stall_section(const Store& store, const RunInfo& run);
std::string render_steering_section(const Store& store, const RunInfo& run);
std::string render_review_section(const Store& store, const RunInfo& run);
std::string render_idle_ideas_section(const Store& store, const RunInfo& run);

}  // namespace cusched::search
