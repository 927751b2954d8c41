#include "runtime/worker.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsl/error.h"
#include "runtime/executable_file.h"

#ifndef CUSCHED_WORKER_BUILD_PATH
#define CUSCHED_WORKER_BUILD_PATH ""
#endif

namespace cusched::runtime {

namespace fs = std::filesystem;

namespace {

std::string& install_prefix() {
  static std::string prefix;
  return prefix;
}

std::string exit_text(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "died from signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

EvalResult verdict_only(Verdict v, std::string message, const EvalRequest& req) {
  EvalResult r;
  r.verdict = v;
  r.message = std::move(message);
  r.precision = req.candidate.precision;
  return r;
}

}  // namespace

std::string find_worker_binary() {
  if (const char* env = std::getenv("CUSCHED_WORKER"); env && *env) {
    if (is_executable_file(env)) return env;
    fail("worker-not-found", std::string("CUSCHED_WORKER names ") + env + ", which is not an executable file.",
         "Point CUSCHED_WORKER at the cusched-worker binary, or unset it.");
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::string beside = (self.parent_path() / "cusched-worker").string();
    if (is_executable_file(beside)) return beside;
  }
  if (!install_prefix().empty()) {
    std::string installed = (fs::path(install_prefix()) / "bin" / "cusched-worker").string();
    if (is_executable_file(installed)) return installed;
  }
  if (is_executable_file(CUSCHED_WORKER_BUILD_PATH)) return CUSCHED_WORKER_BUILD_PATH;
  fail("worker-not-found",
       "The cusched-worker executable was not found next to this program, in the installed package or in the build "
       "tree.",
       "Set CUSCHED_WORKER to the path of cusched-worker.");
}

void set_install_prefix(const std::string& prefix) { install_prefix() = prefix; }

Worker::Worker(int device, std::string binary) : device_(device), binary_(std::move(binary)) {}

Worker::~Worker() { stop(); }

void Worker::start() {
  if (binary_.empty()) binary_ = find_worker_binary();
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail("worker-start-failed",
         std::string("A socket for the worker could not be created: ") + std::strerror(errno) + ".",
         "Check the process's open-file limit.");
  // Everything the child needs is prepared before fork: after it, only exec.
  std::string device = std::to_string(device_);
  std::vector<char*> argv{binary_.data(),         const_cast<char*>("--device"),
                          device.data(),          const_cast<char*>("--fd"),
                          const_cast<char*>("3"), nullptr};
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    fail("worker-start-failed", std::string("The worker process could not be forked: ") + std::strerror(errno) + ".",
         "Check the process limit and free memory.");
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);
    if (fds[1] == 3)
      fcntl(3, F_SETFD, 0);
    else if (dup2(fds[1], 3) < 0)
      _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  pid_ = pid;
  fd_ = fds[0];
  pending_.clear();
  ++started_;
}

void Worker::stop() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  // A process whose GPU context is being torn down can take a while to go.
  for (int i = 0; i < 1000; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

bool Worker::send_line(const std::string& line) {
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

EvalResult Worker::died(const std::string& while_doing) {
  close(fd_);
  fd_ = -1;
  int status = 0;
  std::string how = "closed its connection";
  for (int i = 0; i < 500; ++i) {  // up to 5 s for the exit status
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      how = exit_text(status);
      pid_ = -1;
      break;
    }
    if (r < 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop();
  EvalResult r;
  r.verdict = Verdict::crashed;
  r.message = "The worker process " + how + " while " + while_doing + ".";
  return r;
}

EvalResult Worker::evaluate(const EvalRequest& asked) {
  // In the worker process a fault ends only that process: inputs are mapped read-only.
  EvalRequest request = asked;
  request.read_only_inputs = true;
  EvalResult r = evaluate_once(request);
  if (r.verdict != Verdict::illegal_address || r.input_protection != "read-only mapping") return r;
  // A fault with read-only inputs: a write to an input faults there. Run once more
  // with writable inputs, untimed, in a fresh worker; a candidate that then runs
  // without faulting wrote its inputs (whether or not it put them back).
  EvalRequest writable = request;
  writable.read_only_inputs = false;
  writable.time_it = false;
  EvalResult again = evaluate_once(writable);
  if (again.verdict == Verdict::illegal_address || again.verdict == Verdict::timeout ||
      again.verdict == Verdict::crashed)
    return r;
  EvalResult modified = r;
  modified.verdict = Verdict::input_modified;
  modified.message =
      "The candidate faulted with its inputs mapped read-only and ran without a fault when they were "
      "writable, so it writes its inputs (" +
      r.message + ")" +
      (again.verdict == Verdict::input_modified ? " and did not restore them." : "; it restores them afterwards.");
  return modified;
}

EvalResult Worker::evaluate_once(const EvalRequest& request) {
  EvalRequest req = request;
  req.device = device_;
  if (pid_ <= 0) start();
  nlohmann::json msg{{"request", req.to_json()}};
  if (!send_line(msg.dump() + "\n")) {
    // The worker went away between requests: one fresh try.
    stop();
    start();
    if (!send_line(msg.dump() + "\n")) {
      EvalResult r = died("receiving the request");
      r.precision = req.candidate.precision;
      return r;
    }
  }

  const double limit_s = req.watchdog_s + backstop_s;
  auto last_heard = std::chrono::steady_clock::now();
  char buf[65536];
  for (;;) {
    size_t nl;
    while ((nl = pending_.find('\n')) != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        stop();
        return verdict_only(Verdict::internal_error, "The worker sent a line that is not JSON.", req);
      }
      if (j.contains("heartbeat")) continue;
      if (!j.contains("result")) {
        stop();
        return verdict_only(Verdict::internal_error, "The worker sent a message with neither heartbeat nor result.",
                            req);
      }
      EvalResult r;
      try {
        r = EvalResult::from_json(j.at("result"));
      } catch (const UserError& e) {
        stop();
        return verdict_only(Verdict::internal_error, "The worker's result is malformed: " + e.error().message, req);
      }
      if (verdict_breaks_context(r.verdict)) stop();
      return r;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_heard).count();
    if (waited >= limit_s) {
      stop();
      return verdict_only(Verdict::timeout,
                          "The worker sent nothing for " + std::to_string(static_cast<int>(limit_s)) + " s (watchdog " +
                              std::to_string(req.watchdog_s) + " s plus grace), so it was killed.",
                          req);
    }
    pollfd p{fd_, POLLIN, 0};
    int wait_ms = static_cast<int>(std::min(1000.0, (limit_s - waited) * 1000) + 1);
    int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      EvalResult r =
          died("evaluating " + (req.candidate.problem.empty() ? std::string("the candidate") : req.candidate.problem));
      r.precision = req.candidate.precision;
      return r;
    }
    pending_.append(buf, static_cast<size_t>(n));
    last_heard = std::chrono::steady_clock::now();
  }
}

WorkerPool::WorkerPool(const std::vector<int>& devices, const std::string& binary) {
  for (int d : devices) workers_.push_back(std::make_unique<Worker>(d, binary));
  if (workers_.empty()) workers_.push_back(std::make_unique<Worker>(0, binary));
}

std::vector<EvalResult> WorkerPool::evaluate_all(const std::vector<EvalRequest>& requests) {
  std::vector<EvalResult> results(requests.size());
  std::atomic<size_t> next{0};
  auto drain = [&](Worker& w) {
    for (size_t i; (i = next++) < requests.size();) {
      try {
        results[i] = w.evaluate(requests[i]);
      } catch (const UserError& e) {
        results[i] = verdict_only(Verdict::internal_error, e.error().to_string(), requests[i]);
      }
    }
  };
  std::vector<std::thread> threads;
  for (auto& w : workers_) threads.emplace_back(drain, std::ref(*w));
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace cusched::runtime
