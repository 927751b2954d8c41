// On a fatal signal (segmentation fault, bus error, abort, illegal instruction), writes
// the signal and the call stack to stderr before the process dies, so that a crash on
// a remote machine can be located with addr2line on an unstripped build. The handler
// runs on its own signal stack, so that a stack overflow is reported too.
#include "tools/crash_report.h"

#include <cstring>
#include <initializer_list>

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

namespace cusched::tools {

namespace {

void on_fatal_signal(int sig) {
  const char* name = strsignal(sig);
  const char head[] = "cusched: fatal signal: ";
  (void)!write(STDERR_FILENO, head, sizeof(head) - 1);
  (void)!write(STDERR_FILENO, name, std::strlen(name));
  const char tail[] = "\ncall stack (resolve with addr2line -e <unstripped cusched> <offset>):\n";
  (void)!write(STDERR_FILENO, tail, sizeof(tail) - 1);
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
  // The handler's own stack, for the process's life: a stack overflow leaves no room on
  // the thread's stack.
  alignas(16) static char alt_stack[256 * 1024];
  stack_t alt{};
  alt.ss_sp = alt_stack;
  alt.ss_size = sizeof(alt_stack);
  alt.ss_flags = 0;
  const bool have_alt_stack = sigaltstack(&alt, nullptr) == 0;
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) {
    struct sigaction sa{};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = have_alt_stack ? SA_ONSTACK : 0;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace cusched::tools
