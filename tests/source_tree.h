#pragma once
// The source tree the GPU tests read problem files and schedules from: $CUSCHED_SOURCE_DIR
// where it is set (the binaries are carried to a machine where the tree lies elsewhere),
// else the tree they were built from.
#include <cstdlib>
#include <string>

namespace cusched {

inline std::string source_tree() {
  const char* env = std::getenv("CUSCHED_SOURCE_DIR");
  return env && *env ? std::string(env) : std::string(CUSCHED_SOURCE_DIR);
}

}  // namespace cusched
