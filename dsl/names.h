#pragma once
// The rule for names a schedule or problem gives to stages, loops and copies. Such
// names become identifiers in the generated CUDA source, so each must be a plain C
// identifier that is not a C++ or CUDA keyword, not a CUDA built-in, not a function
// the generated code calls, and not in the namespace of the names cusched generates.
#include <optional>
#include <string>

#include "dsl/error.h"

namespace cusched {

// Longest name accepted.
constexpr size_t kMaxNameLength = 64;

// Why `name` cannot be used, as a structured error with code "bad-name" (the message
// says what `name` was meant to be: `role`, e.g. "the new outer loop"), or nothing when
// it can.
std::optional<Error> name_error(const std::string& name, const std::string& role);

// Throws name_error's error when there is one.
void require_usable_name(const std::string& name, const std::string& role);

}  // namespace cusched
