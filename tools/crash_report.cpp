// On a fatal signal (segmentation fault, bus error, abort, illegal instruction), writes
// the signal and the call stack to stderr before the process dies, so that a crash on
// a remote machine can be located with addr2line on an unstripped build.
#include "tools/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace cusched::tools {

namespace {

void on_fatal_signal(int sig) {
  const char* name = strsignal(sig);
  const char head[] = "cusched: fatal signal: ";
  (void)!write(STDERR_FILENO, head, sizeof(head) - 1);
  (void)!write(STDERR_FILENO, name, std::strlen(name));
  (void)!write(STDERR_FILENO, "\ncall stack (resolve with addr2line -e <unstripped cusched> <offset>):\n", 71);
  void* frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_crash_report() {
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) signal(sig, on_fatal_signal);
}

}  // namespace cusched::tools
