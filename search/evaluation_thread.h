#pragma once
// A thread that lives as long as its owner and runs the jobs given to it, one at a
// time. A GPU worker process (runtime/worker.h) must be started, and restarted after a
// crash, from such a thread: the worker asks the kernel for SIGKILL when the thread that
// started it ends (PR_SET_PDEATHSIG), so a worker started from a short-lived thread dies
// with it, in the middle of whatever it was evaluating next.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace cusched::search {

class EvaluationThread {
 public:
  EvaluationThread();
  ~EvaluationThread();  // waits for the running job, then ends the thread
  EvaluationThread(const EvaluationThread&) = delete;
  EvaluationThread& operator=(const EvaluationThread&) = delete;

  // Starts `job` on the thread; the previous job must have finished.
  void start(std::function<void()> job);
  // True once the job has finished; waits at most `wait`.
  bool finished_within(std::chrono::milliseconds wait);
  // Waits for the job; rethrows what it threw.
  void wait();

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  std::exception_ptr error_;
  bool finished_ = true, quit_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace cusched::search
