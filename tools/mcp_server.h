#pragma once
// The Model Context Protocol server behind `cusched mcp`: JSON-RPC 2.0 messages, one per
// line, on stdin and stdout. It negotiates the protocol version in `initialize`, lists
// the tools of tools/mcp_tools.h and runs each call on its own thread, so `ping` and
// cancellation are answered while a tool runs. A malformed message is answered with a
// JSON-RPC error and the server reads on.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/mcp_searches.h"

namespace cusched::tools::mcp {

// Protocol versions this server speaks, newest first.
const std::vector<std::string>& supported_protocol_versions();

// JSON-RPC error codes.
enum RpcError : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

struct ServerOptions {
  std::string exe;          // the cusched the tools run (default: this executable)
  std::string scratch_dir;  // files for inline arguments (default: a fresh folder under $TMPDIR)
};

class McpServer {
 public:
  McpServer(std::ostream& out, ServerOptions options);
  ~McpServer();

  // Handles one line of input (one JSON-RPC message); answers go to `out`.
  void handle_line(const std::string& line);
  // Waits for the calls in flight and stops the searches this server started.
  void finish();
  // Cancels every call in flight (their children are killed; no answers are sent).
  void cancel_all();

 private:
  void send(const nlohmann::json& message);
  void answer(const nlohmann::json& id, nlohmann::json result);
  void fail(const nlohmann::json& id, int code, const std::string& message, nlohmann::json data = nullptr);
  void handle_request(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
  void handle_notification(const std::string& method, const nlohmann::json& params);
  void initialize(const nlohmann::json& id, const nlohmann::json& params);
  void call_tool(const nlohmann::json& id, const nlohmann::json& params);

  std::ostream& out_;
  std::mutex out_mu_;
  ServerOptions options_;
  SearchProcesses searches_;
  std::string protocol_version_;
  bool initialized_ = false;

  struct Call {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex calls_mu_;
  std::map<std::string, Call> calls_;  // by the request id's JSON text
  void reap_calls(bool wait);
};

}  // namespace cusched::tools::mcp
