#pragma once
// Where a command takes a schedule: a JSON file, "-" for stdin, or "baseline" /
// "best" for the problem's own schedules (problems/automatic_baseline.h: the automatic
// baseline where the problem has none).
#include <string>

#include <nlohmann/json.hpp>

#include "dsl/error.h"
#include "problems/automatic_baseline.h"
#include "problems/problem.h"

namespace cusched::tools {

// Reads the schedule named by `source`; throws UserError (code bad-schedule-source
// or bad-json) with a message naming the fix.
nlohmann::json load_schedule_json(const Problem& problem, const std::string& source);

// Prints an Error as JSON on stdout.
void print_error_json(const Error& e);

}  // namespace cusched::tools
