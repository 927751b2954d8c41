#pragma once
// Work over the indices [0, count) on a few threads: each thread takes the next
// index not yet taken until none is left, so a slow index holds up only its own
// thread. Used for the CPU part of a round and by the evaluators of this host.
#include <cstddef>
#include <functional>

namespace cusched::search {

// The threads of a CPU step: `requested` when positive, else
// min(hardware threads, 4), at least 1.
int cpu_thread_count(int requested);

// Calls body(thread, index) once for every index of [0, count), on
// min(threads, count) threads numbered from 0. A body that returns false stops
// the loop: no thread takes another index after it (bodies already running
// finish). Returns false when a body stopped the loop. An exception thrown by a
// body ends its thread's share and is rethrown here once every thread is done
// (the lowest-numbered thread's when several threw).
bool parallel_for(size_t count, size_t threads, const std::function<bool(size_t thread, size_t index)>& body);

}  // namespace cusched::search
