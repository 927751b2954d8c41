#pragma once
// Which files a kernel source may include. A kernel is audited and compiled on the
// machine that runs cusched, so its includes are restricted to the device header
// library (by its include name, in quotes) and system headers such as the CUDA
// toolkit's (in angle brackets, by a relative name without ".."). Anything else (an
// absolute path, a path that climbs out with "..", a computed `#include MACRO`,
// `#embed`, a quoted name that is not a library header) would read an arbitrary file.
#include <optional>
#include <set>
#include <string>

#include "dsl/error.h"

namespace cusched {

// The first include of `source` outside the rule above, as a structured error with
// code "include-outside-library" (line number in the message), or nothing. `library`
// holds the include names of the headers that travel with the source.
std::optional<Error> include_error(const std::string& source, const std::set<std::string>& library);

}  // namespace cusched
