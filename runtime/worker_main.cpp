// cusched-worker: evaluates candidate kernels for a parent process (see
// runtime/worker.h for the protocol). Started as
//   cusched-worker --device N --fd F
// or, for one evaluation watched by another tool,
//   cusched-worker --evaluate-file REQUEST.json [--result-file RESULT.json] [--device N]
// It exits after any verdict that leaves its CUDA context unusable.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <sys/socket.h>
#include <unistd.h>

#include "runtime/evaluation.h"
#include "runtime/gpu_context.h"

namespace {

int g_fd = -1;

bool send_line(const nlohmann::json& j) {
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = send(g_fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cusched::runtime;
  int device = 0;
  std::string evaluate_file, result_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--device")
      device = std::atoi(argv[i + 1]);
    else if (flag == "--fd")
      g_fd = std::atoi(argv[i + 1]);
    else if (flag == "--evaluate-file")
      evaluate_file = argv[i + 1];
    else if (flag == "--result-file")
      result_file = argv[i + 1];
  }
  if (!evaluate_file.empty()) {
    // One evaluation in this process, for a tool that watches it (compute-sanitizer).
    EvalResult result;
    try {
      std::ifstream in(evaluate_file);
      EvalRequest req = EvalRequest::from_json(nlohmann::json::parse(in));
      req.device = device;
      result = evaluate(req);
    } catch (const std::exception& e) {
      result.verdict = Verdict::internal_error;
      result.message = std::string("The request file could not be evaluated: ") + e.what() + ".";
    }
    if (!result_file.empty()) std::ofstream(result_file) << result.to_json().dump() << "\n";
    return result.passed() ? 0 : 1;
  }
  if (g_fd < 0) {
    std::cerr << "cusched-worker: is started by the cusched runtime with --device N --fd F; it is not run by hand.\n";
    return 2;
  }
  // Kernel printf and anything else written to stdout must not reach the protocol socket.
  dup2(2, 1);

  std::string pending;
  char buf[65536];
  for (;;) {
    size_t nl;
    while ((nl = pending.find('\n')) == std::string::npos) {
      ssize_t n = recv(g_fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // the parent closed the connection
      pending.append(buf, static_cast<size_t>(n));
    }
    std::string line = pending.substr(0, nl);
    pending.erase(0, nl + 1);

    EvalResult result;
    try {
      EvalRequest req = EvalRequest::from_json(nlohmann::json::parse(line).at("request"));
      req.device = device;
      result = evaluate(req, [](const std::string& phase) { send_line({{"heartbeat", phase}}); });
    } catch (const cusched::UserError& e) {
      result.verdict = Verdict::internal_error;
      result.message = e.error().to_string();
    } catch (const std::exception& e) {
      result.verdict = Verdict::internal_error;
      result.message = std::string("The worker could not read the request: ") + e.what() + ".";
    }
    if (!send_line({{"result", result.to_json()}})) return 0;
    // A broken context (or a kernel still running) ends this process; the parent starts a fresh one.
    if (verdict_breaks_context(result.verdict) || context_broken()) _exit(0);
  }
}
