#include "tools/mcp_subprocess.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cusched::tools::mcp {
namespace {

std::vector<char*> argv_of(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

// In a forked child before exec: the signal mask and dispositions a fresh process has
// (the server blocks its stop signals and ignores SIGPIPE; exec would keep both).
void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
}

void append_bounded(std::string& to, const char* data, size_t n, bool& truncated) {
  size_t room = to.size() < kMaxCapturedBytes ? kMaxCapturedBytes - to.size() : 0;
  if (n > room) truncated = true;
  to.append(data, std::min(n, room));
}

}  // namespace

std::string self_executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "cusched";
  return std::string(buf, static_cast<size_t>(n));
}

ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, double timeout_s,
                      const std::atomic<bool>* cancelled,
                      const std::function<void(double elapsed_s, const std::string& last_err_line)>& tick) {
  ChildResult r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.err = std::string("pipe failed: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]), close(out_pipe[1]);
    r.err = std::string("pipe failed: ") + std::strerror(errno);
    return r;
  }
  std::vector<char*> argv = argv_of(exe, args);
  pid_t pid = fork();
  if (pid < 0) {
    r.err = std::string("fork failed: ") + std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return r;
  }
  if (pid == 0) {
    reset_signals();
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  bool killed = false;
  while (open_fds > 0) {
    bool stop = (cancelled && cancelled->load()) || std::chrono::steady_clock::now() >= deadline;
    if (stop && !killed) {
      r.timed_out = !(cancelled && cancelled->load());
      kill(-pid, SIGKILL);
      killed = true;
    }
    int ready = poll(fds, 2, 100);
    if (ready < 0 && errno != EINTR) break;
    if (tick) {
      std::string last = r.err;
      while (!last.empty() && last.back() == '\n') last.pop_back();
      size_t nl = last.rfind('\n');
      if (nl != std::string::npos) last = last.substr(nl + 1);
      tick(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), last);
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (i == 0)
          append_bounded(r.out, buf, static_cast<size_t>(n), r.out_truncated);
        else
          append_bounded(r.err, buf, static_cast<size_t>(n), r.err_truncated);
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

int spawn_detached(const std::string& exe, const std::vector<std::string>& args, const std::string& out_path,
                   const std::string& err_path, std::string& error) {
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    error = "Cannot write the file '" + out_path + "': " + std::strerror(errno) + ".";
    return -1;
  }
  int log = open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    error = "Cannot write the log file '" + err_path + "': " + std::strerror(errno) + ".";
    close(out);
    return -1;
  }
  std::vector<char*> argv = argv_of(exe, args);
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork failed: ") + std::strerror(errno);
    close(log);
    close(out);
    return -1;
  }
  if (pid == 0) {
    reset_signals();
    setsid();
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out, 1);
    dup2(log, 2);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  close(log);
  close(out);
  return pid;
}

}  // namespace cusched::tools::mcp
