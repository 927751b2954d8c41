#pragma once
// Validators for numeric flags: a value outside its range, NaN or infinity is refused
// by the command-line parser with the flag's name, before the command runs.
#include <cmath>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace cusched::tools {

// A finite number in [lo, hi].
inline CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        size_t used = 0;
        double v = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (used != text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(v) || v < lo || v > hi)
          return "'" + text + "' is not a finite number from " + CLI::detail::to_string(lo) + " to " +
                 CLI::detail::to_string(hi);
        return {};
      },
      "NUMBER in [" + CLI::detail::to_string(lo) + ", " + CLI::detail::to_string(hi) + "]");
}

// A whole number in [lo, hi], written in decimal digits (with an optional leading minus).
inline CLI::Validator integer_in(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
        if (text.size() == start || text.size() > 19 + start ||
            text.find_first_not_of("0123456789", start) != std::string::npos)
          return "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
        long long v = 0;
        try {
          v = std::stoll(text);
        } catch (const std::exception&) {
          return "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
        }
        if (v < lo || v > hi)
          return "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// Seeds: 0 .. 2^63 - 1.
inline CLI::Validator seed_value() { return integer_in(0, INT64_MAX); }

}  // namespace cusched::tools
