// The index pool of the CPU step and of this host's evaluators: every index
// once, a body can stop the loop, and a body's exception reaches the caller.
#include "search/parallel_for.h"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace cusched::search {
namespace {

TEST(ParallelFor, VisitsEveryIndexOnceOnAtMostTheGivenThreads) {
  std::vector<std::atomic<int>> visits(200);
  std::mutex mu;
  std::vector<size_t> threads_seen;
  EXPECT_TRUE(parallel_for(visits.size(), 4, [&](size_t thread, size_t i) {
    ++visits[i];
    std::lock_guard<std::mutex> lock(mu);
    threads_seen.push_back(thread);
    return true;
  }));
  for (size_t i = 0; i < visits.size(); ++i) EXPECT_EQ(visits[i].load(), 1) << "index " << i;
  for (size_t t : threads_seen) EXPECT_LT(t, 4u);
}

TEST(ParallelFor, StartsNoMoreThreadsThanIndices) {
  parallel_for(2, 8, [&](size_t thread, size_t) {
    EXPECT_LT(thread, 2u);
    return true;
  });
  size_t calls = 0;
  EXPECT_TRUE(parallel_for(0, 3, [&](size_t, size_t) {
    ++calls;
    return true;
  }));
  EXPECT_EQ(calls, 0u);
}

TEST(ParallelFor, ABodyThatReturnsFalseStopsTheLoop) {
  std::vector<size_t> seen;
  EXPECT_FALSE(parallel_for(10, 1, [&](size_t, size_t i) {
    seen.push_back(i);
    return i < 3;
  }));
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3}));
  // On several threads only the bodies already running finish after the stop.
  std::atomic<size_t> calls{0};
  EXPECT_FALSE(parallel_for(1000, 3, [&](size_t, size_t) {
    ++calls;
    return false;
  }));
  EXPECT_LE(calls.load(), 3u);
}

TEST(ParallelFor, AnExceptionEndsOnlyItsThreadAndIsRethrown) {
  std::vector<std::atomic<int>> visits(50);
  try {
    parallel_for(visits.size(), 2, [&](size_t, size_t i) {
      if (i == 3) throw std::runtime_error("index 3 failed");
      ++visits[i];
      return true;
    });
    FAIL() << "the body's exception was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 3 failed");
  }
  // The other thread took every remaining index before the exception came back.
  for (size_t i = 0; i < visits.size(); ++i) EXPECT_EQ(visits[i].load(), i == 3 ? 0 : 1) << "index " << i;
}

TEST(CpuThreadCount, AsRequestedElseUpToFour) {
  EXPECT_EQ(cpu_thread_count(7), 7);
  const int d = cpu_thread_count(0);
  EXPECT_GE(d, 1);
  EXPECT_LE(d, 4);
  EXPECT_EQ(cpu_thread_count(-2), d);
}

}  // namespace
}  // namespace cusched::search
