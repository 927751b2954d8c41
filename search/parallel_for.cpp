#include "search/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>
#include <vector>

namespace cusched::search {

int cpu_thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::min(std::thread::hardware_concurrency(), 4u)));
}

bool parallel_for(size_t count, size_t threads, const std::function<bool(size_t thread, size_t index)>& body) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  auto work = [&](size_t thread) {
    for (size_t i; !stopped && (i = next.fetch_add(1)) < count;)
      if (!body(thread, i)) stopped = true;
  };
  // The futures of std::async wait for their thread when destroyed, so an
  // exception rethrown by get() leaves no thread running.
  std::vector<std::future<void>> tasks;
  for (size_t t = 0; t < std::min(threads, count); ++t) tasks.push_back(std::async(std::launch::async, work, t));
  for (auto& task : tasks) task.get();
  return !stopped;
}

}  // namespace cusched::search
