#include "tools/schedule_source.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "dsl/error.h"

namespace cusched::tools {

nlohmann::json load_schedule_json(const Problem& problem, const std::string& source) {
  if (source == "baseline") return baseline_schedule_of(problem);
  if (source == "best") return best_schedule_of(problem);
  std::string text;
  if (source == "-") {
    std::ostringstream os;
    os << std::cin.rdbuf();
    text = os.str();
  } else {
    std::ifstream in(source);
    if (!in)
      fail("bad-schedule-source", "Cannot open the schedule file '" + source + "'.",
           "Pass a JSON file, - for stdin, or baseline / best for the problem's own schedules.");
    std::ostringstream os;
    os << in.rdbuf();
    text = os.str();
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail("bad-json", std::string("The schedule is not valid JSON: ") + e.what() + ".",
         "Write the schedule as a JSON array of steps (see `cusched schema`).");
  }
}

void print_error_json(const Error& e) { std::cout << nlohmann::json({{"ok", false}, {"error", e.to_json()}}).dump(2) << "\n"; }

}  // namespace cusched::tools
