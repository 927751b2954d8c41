#include "runtime/sanitizer.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "dsl/error.h"
#include "runtime/executable_file.h"
#include "runtime/worker.h"

namespace cusched::runtime {

namespace fs = std::filesystem;

namespace {

// Runs argv, in a process group of its own, with stdout and stderr to `log`; returns the
// exit status, -1 when it could not run or ended by a signal, or kTimedOut when it ran past
// `timeout_s` seconds (its whole group, compute-sanitizer and the worker under it, is then
// killed).
constexpr int kTimedOut = -2;

int run_process(const std::vector<std::string>& argv, const std::string& log, double timeout_s) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that the group exists before a kill below
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= until) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

nlohmann::json SanitizerRun::to_json() const {
  nlohmann::json j = {{"tool", tool}, {"errors", errors}, {"findings", findings}};
  if (seconds >= 0) j["seconds"] = std::round(seconds * 10) / 10;
  if (!problem.empty()) j["problem"] = problem;
  return j;
}

bool read_sanitizer_log(const std::string& text, SanitizerRun& run) {
  static const std::regex error_summary(R"(ERROR SUMMARY:\s*([0-9]+)\s+error)");
  static const std::regex race_summary(
      R"(RACECHECK SUMMARY:\s*[0-9]+\s+hazards?\s+displayed\s*\(\s*([0-9]+)\s+errors?,\s*([0-9]+)\s+warnings?)");
  std::smatch m;
  if (std::regex_search(text, m, error_summary)) {
    run.errors = std::stoi(m[1]);
  } else if (std::regex_search(text, m, race_summary)) {
    run.errors = std::stoi(m[1]) + std::stoi(m[2]);
  } else {
    return false;
  }
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line) && run.findings.size() < 20)
    if (line.find("SUMMARY") == std::string::npos &&
        (line.find("Error") != std::string::npos || line.find("Race") != std::string::npos ||
         line.find("Invalid") != std::string::npos || line.find("Hazard") != std::string::npos ||
         line.find("hazard") != std::string::npos))
      run.findings.push_back(line);
  return true;
}

std::optional<std::string> find_compute_sanitizer() {
  if (const char* env = std::getenv("CUSCHED_COMPUTE_SANITIZER"); env && is_executable_file(env))
    return std::string(env);
  if (is_executable_file("/usr/local/cuda/bin/compute-sanitizer"))
    return std::string("/usr/local/cuda/bin/compute-sanitizer");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (is_executable_file(dir + "/compute-sanitizer")) return dir + "/compute-sanitizer";
  }
  return std::nullopt;
}

std::vector<SanitizerRun> sanitize(const EvalRequest& request, const std::vector<std::string>& tools,
                                   const std::string& worker, double timeout_s) {
  std::vector<SanitizerRun> runs;
  auto sanitizer = find_compute_sanitizer();
  EvalRequest req = request;
  req.time_it = false;
  req.host_check = true;
  req.trial_limit = 1;  // memory errors and races need the kernels to run, not four input sets
  req.time_each_launch = false;
  req.watchdog_s = std::max(req.watchdog_s, 120.0);
  const fs::path dir = fs::temp_directory_path() / ("cusched-sanitize-" + std::to_string(getpid()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string request_file = (dir / "request.json").string();
  {
    std::ofstream out(request_file);
    out << req.to_json().dump();
  }
  std::string binary;
  try {
    binary = worker.empty() ? find_worker_binary() : worker;
  } catch (const cusched::UserError&) {
    binary.clear();
  }
  for (const auto& tool : tools) {
    SanitizerRun run;
    run.tool = tool;
    if (!sanitizer) {
      run.problem = "compute-sanitizer was not found (set CUSCHED_COMPUTE_SANITIZER or install the CUDA toolkit).";
    } else if (binary.empty()) {
      run.problem = "The cusched-worker binary was not found.";
    } else {
      const std::string log = (dir / (tool + ".log")).string();
      const std::string result = (dir / (tool + ".result.json")).string();
      std::vector<std::string> argv{*sanitizer, "--tool", tool, "--print-limit", "50", "--log-file", log};
      if (tool == "racecheck") argv.insert(argv.end(), {"--racecheck-report", "all"});
      argv.insert(argv.end(), {binary, "--evaluate-file", request_file, "--result-file", result});
      const auto began = std::chrono::steady_clock::now();
      int status = run_process(argv, (dir / (tool + ".out")).string(), timeout_s);
      run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      if (status == kTimedOut) {
        run.problem = "compute-sanitizer's " + tool + " run passed its limit of " + std::to_string(int(timeout_s)) +
                      " s and was stopped, so it reported nothing.";
      } else if (!read_sanitizer_log(read_file(log), run)) {
        run.problem = "compute-sanitizer ended with status " + std::to_string(status) + " and no error summary.";
      }
    }
    runs.push_back(std::move(run));
  }
  fs::remove_all(dir, ec);
  return runs;
}

nlohmann::json sanitizer_report(const std::vector<SanitizerRun>& runs) {
  bool clean = !runs.empty();
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : runs) {
    clean = clean && r.errors == 0;
    a.push_back(r.to_json());
  }
  return {{"clean", clean}, {"runs", a}};
}

}  // namespace cusched::runtime
