#pragma once
// Progress of a long operation on stderr: a line when it starts, one every `every_s`
// seconds while it runs ("still ..., 20 s"), and one when it ends after more than
// `every_s` seconds. Output on stdout stays what the command prints.
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

namespace cusched::tools {

class ProgressHeartbeat {
 public:
  ProgressHeartbeat(std::string what, std::string start_line, double every_s = 10)
      : what_(std::move(what)), every_(every_s), start_(std::chrono::steady_clock::now()) {
    std::cerr << start_line << std::endl;
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!cv_.wait_for(lock, std::chrono::duration<double>(every_), [this] { return done_; }))
        std::cerr << "still " << what_ << ", " << static_cast<int>(elapsed()) << " s" << std::endl;
    });
  }
  ~ProgressHeartbeat() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (elapsed() > every_) std::cerr << "done " << what_ << " in " << static_cast<int>(elapsed()) << " s" << std::endl;
  }
  ProgressHeartbeat(const ProgressHeartbeat&) = delete;
  ProgressHeartbeat& operator=(const ProgressHeartbeat&) = delete;

 private:
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  std::string what_;
  double every_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace cusched::tools
