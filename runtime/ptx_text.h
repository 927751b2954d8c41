#pragma once
// Reading PTX text line by line: the scans of compiled code share these.
#include <string>

namespace cusched::runtime {

// `s` without leading blanks and without trailing blanks and semicolons.
inline std::string trim_ptx(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r;");
  return s.substr(a, b - a + 1);
}

}  // namespace cusched::runtime
