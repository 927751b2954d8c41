// `cusched mcp`: a Model Context Protocol server on stdin and stdout (tools/mcp_server.h),
// so that coding agents drive cusched through its tools.
#include <cstdlib>
#include <iostream>
#include <thread>

#include <signal.h>

#include "tools/command.h"
#include "tools/mcp_server.h"
#include "tools/mcp_subprocess.h"

namespace cusched::tools {
namespace {

struct McpCommandOptions {
  std::string exe, scratch;
};

int serve(const McpCommandOptions& o) {
  // SIGTERM, SIGINT and SIGHUP are taken by one thread, which stops the tools and the
  // searches this server started before it exits; the other threads never see them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop_signals, s);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  mcp::ServerOptions so;
  so.exe = o.exe.empty() ? mcp::self_executable() : o.exe;
  so.scratch_dir = o.scratch;
  std::ios::sync_with_stdio(false);
  // Tool threads write std::cout under the server's lock; a tied std::cin would flush it
  // from this thread, outside that lock, before every read.
  std::cin.tie(nullptr);
  auto* server = new mcp::McpServer(std::cout, so);
  std::thread([server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server->cancel_all();
    server->finish();
    std::_Exit(128 + sig);
  }).detach();
  std::string line;
  while (std::getline(std::cin, line)) server->handle_line(line);
  server->finish();
  std::_Exit(kExitOk);  // the signal thread still waits; nothing else is left to clean up
}

CommandRegistration mcp_command{
    {"mcp", "Serve the Model Context Protocol on stdin/stdout (JSON-RPC 2.0, one message per line) for agents",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<McpCommandOptions>();
       sub.add_option("--cusched", o->exe, "The cusched executable the tools run (default: this one)");
       sub.add_option("--scratch", o->scratch,
                      "Folder for the files of inline schedules and kernels (default: a fresh folder in $TMPDIR, "
                      "removed at exit)");
       return [o] { return serve(*o); };
     }}};

}  // namespace
}  // namespace cusched::tools
