#pragma once
// Whether a path names a regular file this process may execute (the worker, the
// compute-sanitizer).
#include <string>

namespace cusched::runtime {

bool is_executable_file(const std::string& path);

}  // namespace cusched::runtime
