#pragma once
// Runs the cusched executable itself as a child process, for the MCP server's tools:
// a crash or a hang in a tool ends that child only. Output is captured up to a bound,
// and a child that runs past its time limit is killed with its process group.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace cusched::tools::mcp {

struct ChildResult {
  int exit_code = -1;      // the child's exit status; -1 when it did not exit normally
  int signal = 0;          // the signal that ended it, 0 when none
  bool timed_out = false;  // killed after the time limit
  std::string out, err;    // stdout and stderr (each at most kMaxCapturedBytes)
  bool out_truncated = false, err_truncated = false;
};

constexpr size_t kMaxCapturedBytes = 8 << 20;

// The path of the running executable (/proc/self/exe resolved).
std::string self_executable();

// Runs `exe args...` with stdin from /dev/null, waiting at most `timeout_s` seconds.
// `cancelled`, when given, is polled; once it reads true the child is killed. `tick`, when
// given, is called about ten times a second with the seconds elapsed and the last line
// the child wrote on stderr.
ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, double timeout_s,
                      const std::atomic<bool>* cancelled = nullptr,
                      const std::function<void(double elapsed_s, const std::string& last_err_line)>& tick = {});

// Starts `exe args...` in its own session with stdout written to `out_path` and stderr
// appended to `err_path`, and returns its process id (the caller reaps it), or -1 with
// `error` set.
int spawn_detached(const std::string& exe, const std::vector<std::string>& args, const std::string& out_path,
                   const std::string& err_path, std::string& error);

}  // namespace cusched::tools::mcp
