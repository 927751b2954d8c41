// Findings as values: JSON and one-line text forms.
#include "audit/audit.h"

namespace cusched::audit {

std::string to_string(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Info:
      return "info";
  }
  return "error";
}

nlohmann::json Finding::to_json() const {
  return {{"rule", rule},     {"severity", audit::to_string(severity)},
          {"file", file},     {"line", line},
          {"column", column}, {"message", message},
          {"hint", hint}};
}

std::string Finding::to_string() const {
  std::string s = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + audit::to_string(severity) +
                  ": " + message + " [" + rule + "]";
  if (!hint.empty()) s += "\n  hint: " + hint;
  return s;
}

bool has_error(const std::vector<Finding>& findings) {
  for (const auto& f : findings)
    if (f.severity == Severity::Error) return true;
  return false;
}

}  // namespace cusched::audit
