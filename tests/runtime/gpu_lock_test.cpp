// The GPU lock (runtime/gpu_lock.h): nothing without CUSCHED_GPU_LOCK; with it, a process
// waits while another holds the device's file and goes on once it is released; a path it
// cannot open is a structured error. Other processes are forked children, as the
// `cusched` processes of parallel searches are.
#include "runtime/gpu_lock.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/user_error_code.h"

namespace cusched::runtime {
namespace {

class ScopedLockEnv {
 public:
  explicit ScopedLockEnv(const std::string& value) {
    if (const char* old = std::getenv("CUSCHED_GPU_LOCK")) old_ = old;
    ::setenv("CUSCHED_GPU_LOCK", value.c_str(), 1);
  }
  ~ScopedLockEnv() {
    if (old_.empty())
      ::unsetenv("CUSCHED_GPU_LOCK");
    else
      ::setenv("CUSCHED_GPU_LOCK", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

std::string fresh_base(const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() / ("cusched-gpu-lock-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / "gpu.lock").string();
}

TEST(GpuLock, WithoutTheVariableNothingIsLocked) {
  ScopedLockEnv env("");
  EXPECT_EQ(gpu_lock_path(0), "");
  GpuLock a(0), b(0);  // two at once in one process: neither blocks
  EXPECT_FALSE(a.held());
  EXPECT_FALSE(b.held());
}

TEST(GpuLock, EachDeviceHasItsOwnFile) {
  ScopedLockEnv env("/tmp/x.lock");
  EXPECT_EQ(gpu_lock_path(0), "/tmp/x.lock.0");
  EXPECT_EQ(gpu_lock_path(3), "/tmp/x.lock.3");
}

// A child holds device 0's file for `hold_ms`; the parent's lock waits about that long.
TEST(GpuLock, AProcessWaitsWhileAnotherHoldsTheDevice) {
  const std::string base = fresh_base("wait");
  ScopedLockEnv env(base);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const int hold_ms = 2300;
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    int code = 0;
    {
      GpuLock held(0);
      if (!held.held()) code = 2;
      char c = 1;
      if (::write(ready[1], &c, 1) != 1) code = 3;
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    }
    ::_exit(code);
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);  // the child holds the lock now
  ::close(ready[0]);
  int calls = 0;
  GpuLock mine(0, [&] { ++calls; });
  EXPECT_TRUE(mine.held());
  EXPECT_GE(mine.waited_ms(), hold_ms * 0.5);
  // About once a second while waiting (a worker's heartbeat).
  EXPECT_GE(calls, static_cast<int>(mine.waited_ms() / 1000) - 1);
  EXPECT_LE(calls, static_cast<int>(mine.waited_ms() / 1000) + 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Another device's file is free while device 0's is held, and a released lock is free again.
TEST(GpuLock, OtherDevicesAndReleasedLocksDoNotWait) {
  const std::string base = fresh_base("free");
  ScopedLockEnv env(base);
  { GpuLock first(0); }
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    GpuLock zero(0);  // free: the parent's was released
    // Held by this child; the parent takes device 1 meanwhile.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::_exit(zero.held() ? 0 : 2);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  GpuLock one(1);
  EXPECT_TRUE(one.held());
  EXPECT_LT(one.waited_ms(), 150.0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(GpuLock, AnUnopenablePathIsAStructuredError) {
  ScopedLockEnv env("/nonexistent-folder-of-cusched/gpu.lock");
  std::string message;
  EXPECT_EQ(test::error_code([] { GpuLock lock(0); }, &message), "gpu-lock");
  EXPECT_NE(message.find("/nonexistent-folder-of-cusched/gpu.lock.0"), std::string::npos) << message;
}

}  // namespace
}  // namespace cusched::runtime
