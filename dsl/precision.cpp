#include "dsl/precision.h"

#include <array>
#include <utility>

#include "dsl/error.h"

namespace cusched {
namespace {

const std::array<std::pair<Precision, std::string>, 7>& names() {
  static const std::array<std::pair<Precision, std::string>, 7> table = {{{Precision::f64, "f64"},
                                                                          {Precision::f32, "f32"},
                                                                          {Precision::tf32, "tf32"},
                                                                          {Precision::x3tf32, "3xtf32"},
                                                                          {Precision::bf16, "bf16"},
                                                                          {Precision::f16, "f16"},
                                                                          {Precision::fp8, "fp8"}}};
  return table;
}

}  // namespace

const std::string& precision_name(Precision p) {
  for (const auto& [value, name] : names())
    if (value == p) return name;
  return names()[1].second;
}

std::optional<Precision> precision_from_name(const std::string& name) {
  for (const auto& [value, n] : names())
    if (n == name) return value;
  return std::nullopt;
}

Precision parse_precision(const std::string& name) {
  if (auto p = precision_from_name(name)) return *p;
  fail("unknown-precision", "The precision '" + name + "' is not known.",
       "Use one of f64, f32, tf32, 3xtf32, bf16, f16.");
}

}  // namespace cusched
