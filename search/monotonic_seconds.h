#pragma once
// Seconds on the monotonic clock, for budgets, deadlines and silences measured within
// one process.
#include <chrono>

namespace cusched::search {

inline double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace cusched::search
