#include "runtime/host_parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cusched::runtime {

int64_t host_chunk_count(int64_t elements, int64_t chunk) {
  if (elements <= 0) return 0;
  return (elements + chunk - 1) / chunk;
}

void for_each_host_chunk(int64_t elements, const std::function<void(int64_t, int64_t, int64_t)>& body, int64_t chunk) {
  const int64_t chunks = host_chunk_count(elements, chunk);
  auto run_chunk = [&](int64_t c) { body(c, c * chunk, std::min(elements, (c + 1) * chunk)); };
  unsigned threads = std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 64);
  threads = static_cast<unsigned>(std::min<int64_t>(threads, chunks));
  if (threads <= 1) {
    for (int64_t c = 0; c < chunks; ++c) run_chunk(c);
    return;
  }
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto drain = [&] {
    for (int64_t c; (c = next++) < chunks;) {
      try {
        run_chunk(c);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(drain);
  drain();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace cusched::runtime
