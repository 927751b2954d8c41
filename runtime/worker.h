#pragma once
// Candidates run in a separate worker process (cusched-worker), so that an
// illegal address, a kernel that never ends or a crash becomes that candidate's
// verdict instead of the end of the caller. The parent never initialises CUDA.
//
// Protocol, over one Unix socket, one JSON object per line:
//   parent -> worker  {"request": EvalRequest}
//   worker -> parent  {"heartbeat": "<phase>"} ...  then  {"result": EvalResult}
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "runtime/evaluation.h"

namespace cusched::runtime {

// $CUSCHED_WORKER, else cusched-worker next to this executable, else the one in the
// installed package (set_install_prefix), else the build-tree path baked in at compile
// time. Throws UserError ("worker-not-found").
std::string find_worker_binary();

// The prefix cusched is installed under: its cusched-worker is `prefix`/bin/cusched-worker.
// cusched/cusched.h calls it for programs built against the installed package.
void set_install_prefix(const std::string& prefix);

class Worker {
 public:
  // `binary` empty: find_worker_binary() at the first evaluation.
  explicit Worker(int device = 0, std::string binary = "");
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Sends `request` (its device replaced by this worker's) and waits for the
  // result. A worker that dies gives `crashed`; one that sends nothing for
  // request.watchdog_s + backstop_s seconds is killed and gives `timeout`.
  // After either, or after a verdict that breaks the CUDA context, the next
  // request gets a fresh worker process.
  // A candidate that faults with its inputs mapped read-only is run once more with
  // writable inputs: when that run does not fault, the verdict is input_modified.
  EvalResult evaluate(const EvalRequest& request);

  int device() const { return device_; }
  int processes_started() const { return started_; }
  pid_t pid() const { return pid_; }

  double backstop_s = 60;  // grace beyond the watchdog, for compiles and the worker's own watchdog

 private:
  EvalResult evaluate_once(const EvalRequest& request);
  void start();
  void stop();  // kills and reaps the process
  bool send_line(const std::string& line);
  EvalResult died(const std::string& while_doing);

  int device_;
  std::string binary_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string pending_;  // bytes read past the last full line
  int started_ = 0;
};

// One worker per device; evaluate_all spreads requests over them, one thread
// per worker, and returns the results in request order.
class WorkerPool {
 public:
  explicit WorkerPool(const std::vector<int>& devices, const std::string& binary = "");
  std::vector<EvalResult> evaluate_all(const std::vector<EvalRequest>& requests);
  size_t size() const { return workers_.size(); }
  Worker& worker(size_t i) { return *workers_.at(i); }

 private:
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace cusched::runtime
