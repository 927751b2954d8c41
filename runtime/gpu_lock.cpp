#include "runtime/gpu_lock.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "dsl/error.h"

namespace cusched::runtime {

std::string gpu_lock_path(int device) {
  const char* env = std::getenv("CUSCHED_GPU_LOCK");
  if (!env || !*env) return "";
  return std::string(env) + "." + std::to_string(device);
}

GpuLock::GpuLock(int device, const std::function<void()>& waiting) {
  const std::string path = gpu_lock_path(device);
  if (path.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    fail("gpu-lock", "The GPU lock file '" + path + "' could not be opened: " + std::strerror(errno) + ".",
         "Set CUSCHED_GPU_LOCK to a path in a writable folder, or unset it to evaluate without taking turns.");
  auto last_call = start;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK && err != EINTR) {
      ::close(fd);
      fail("gpu-lock", "The GPU lock file '" + path + "' could not be locked: " + std::strerror(err) + ".",
           "Put CUSCHED_GPU_LOCK on a local file system that supports flock, or unset it.");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto now = std::chrono::steady_clock::now();
    if (waiting && now - last_call >= std::chrono::seconds(1)) {
      last_call = now;
      waiting();
    }
  }
  fd_ = fd;
  waited_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace cusched::runtime
