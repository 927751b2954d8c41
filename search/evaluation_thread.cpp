#include "search/evaluation_thread.h"

#include <utility>

namespace cusched::search {

EvaluationThread::EvaluationThread() : thread_([this] { loop(); }) {}

EvaluationThread::~EvaluationThread() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return finished_; });
    quit_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void EvaluationThread::start(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  job_ = std::move(job);
  error_ = nullptr;
  finished_ = false;
  changed_.notify_all();
}

bool EvaluationThread::finished_within(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, wait, [&] { return finished_; });
}

void EvaluationThread::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void EvaluationThread::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return job_ || quit_; });
    if (!job_) return;
    auto job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    finished_ = true;
    changed_.notify_all();
  }
}

}  // namespace cusched::search
