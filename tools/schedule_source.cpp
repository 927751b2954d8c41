#include "tools/schedule_source.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include <sys/stat.h>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::tools {

nlohmann::json load_schedule_json(const Problem& problem, const std::string& source) {
  if (source == "baseline") return baseline_schedule_of(problem);
  if (source == "best") return best_schedule_of(problem);
  const std::string hint = "Write the schedule as a JSON array of steps (see `cusched schema`).";
  std::string text;
  if (source == "-") {
    text = read_bounded(std::cin, kMaxJsonBytes, "The schedule on standard input");
  } else {
    struct stat st{};
    if (stat(source.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      fail("bad-schedule-source", "Cannot open the schedule file '" + source + "'.",
           "Pass a JSON file, - for stdin, or baseline / best for the problem's own schedules.");
    text = read_file_bounded(source, kMaxJsonBytes, "The schedule file");
  }
  return parse_json_input(text, "The schedule", hint);
}

void print_error_json(const Error& e) {
  std::cout << nlohmann::json({{"ok", false}, {"error", e.to_json()}}).dump(2) << "\n";
}

}  // namespace cusched::tools
