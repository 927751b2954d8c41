#include "tools/mcp_server.h"

#include <algorithm>
#include <filesystem>

#include <unistd.h>

#include "tools/mcp_tools.h"
#include "tools/version.h"

namespace cusched::tools::mcp {
namespace {

using nlohmann::json;

const char* kInstructions =
    "cusched turns a tensor computation plus a schedule (a JSON array of transformation steps) into a verified "
    "CUDA kernel. Start with list_problems and describe_problem (the stages and loops a schedule names), read "
    "schedule_schema or primitive_reference, check a schedule with validate_schedule, verify it with "
    "run_schedule (backend interp needs no GPU), and look at lower_schedule's CUDA or cost. start_search runs a "
    "search in the background; poll search_status until its state is no longer running. Tool failures come "
    "back as results with isError true and a structured error {code, message, hint}; the hint names the fix.";

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

McpServer::McpServer(std::ostream& out, ServerOptions options) : out_(out), options_(std::move(options)) {
  if (options_.scratch_dir.empty()) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    options_.scratch_dir = (base / ("cusched-mcp-" + std::to_string(getpid()))).string();
  }
}

McpServer::~McpServer() { finish(); }

void McpServer::send(const json& message) {
  std::string text = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(out_mu_);
  out_ << text << "\n";
  out_.flush();
}

void McpServer::answer(const json& id, json result) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void McpServer::fail(const json& id, int code, const std::string& message, json data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

void McpServer::handle_line(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  json message = json::parse(line, nullptr, false);
  if (message.is_discarded()) {
    fail(nullptr, kParseError, "Parse error: the line is not valid JSON.");
    return;
  }
  if (message.is_array()) {
    fail(nullptr, kInvalidRequest, "Invalid request: batches are not supported; send one message per line.");
    return;
  }
  if (!message.is_object() || message.value("jsonrpc", json()) != "2.0") {
    json id = message.is_object() && message.contains("id") && valid_id(message["id"]) ? message["id"] : json();
    fail(id, kInvalidRequest, "Invalid request: a message is a JSON object with \"jsonrpc\": \"2.0\".");
    return;
  }
  if (!message.contains("method")) return;  // a response from the client: this server sends no requests
  if (!message["method"].is_string()) {
    json id = message.contains("id") && valid_id(message["id"]) ? message["id"] : json();
    fail(id, kInvalidRequest, "Invalid request: \"method\" must be a string.");
    return;
  }
  const std::string method = message["method"];
  json params = message.value("params", json::object());
  if (!message.contains("id")) {
    handle_notification(method, params);
    return;
  }
  if (!valid_id(message["id"])) {
    fail(nullptr, kInvalidRequest, "Invalid request: \"id\" must be a string or an integer.");
    return;
  }
  if (!params.is_object()) {
    fail(message["id"], kInvalidParams, "Invalid params: \"params\" must be an object.");
    return;
  }
  handle_request(message["id"], method, params);
}

void McpServer::handle_notification(const std::string& method, const json& params) {
  if (method == "notifications/initialized") {
    initialized_ = true;
  } else if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
    std::lock_guard<std::mutex> lock(calls_mu_);
    auto it = calls_.find(params["requestId"].dump());
    if (it != calls_.end()) it->second.cancelled->store(true);
  }
  // Other notifications need no answer and change nothing here.
}

void McpServer::handle_request(const json& id, const std::string& method, const json& params) {
  reap_calls(false);
  if (method == "initialize") return initialize(id, params);
  if (method == "ping") return answer(id, json::object());
  if (protocol_version_.empty())
    return fail(id, kInvalidRequest, "The session is not initialized: send \"initialize\" first.");
  if (method == "tools/list") {
    json tools = json::array();
    for (const auto& t : tool_table()) tools.push_back(tool_listing(t));
    return answer(id, {{"tools", tools}});
  }
  if (method == "tools/call") return call_tool(id, params);
  fail(id, kMethodNotFound,
       "Method not found: '" + method +
           "'. This server offers initialize, ping, tools/list "
           "and tools/call.");
}

void McpServer::initialize(const json& id, const json& params) {
  if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string())
    return fail(id, kInvalidParams, "Invalid params: initialize needs \"protocolVersion\" (a string).");
  const std::string asked = params["protocolVersion"];
  const auto& v = supported_protocol_versions();
  protocol_version_ = std::find(v.begin(), v.end(), asked) != v.end() ? asked : v.front();
  answer(id, {{"protocolVersion", protocol_version_},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "cusched"}, {"title", "cusched"}, {"version", cusched_version()}}},
              {"instructions", kInstructions}});
}

void McpServer::call_tool(const json& id, const json& params) {
  if (!params.contains("name") || !params["name"].is_string())
    return fail(id, kInvalidParams, "Invalid params: tools/call needs \"name\" (a string).");
  const ToolSpec* tool = find_tool(params["name"]);
  if (!tool)
    return fail(id, kInvalidParams,
                "Unknown tool: '" + params["name"].get<std::string>() + "'. tools/list lists the tools.");
  json arguments = params.value("arguments", json::object());
  json progress_token =
      params.contains("_meta") && params["_meta"].is_object() ? params["_meta"].value("progressToken", json()) : json();
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  auto done = std::make_shared<std::atomic<bool>>(false);
  auto run = [this, id, tool, arguments, progress_token, cancelled, done] {
    json result;
    try {
      ToolResult r;
      std::string problem = check_arguments(*tool, arguments);
      if (!problem.empty()) {
        r.is_error = true;
        r.structured = {
            {"ok", false},
            {"error",
             {{"code", "bad-arguments"},
              {"message", "The arguments of " + tool->name + " do not fit its input schema: " + problem + "."},
              {"hint", "tools/list gives each tool's inputSchema."}}}};
      } else {
        ToolEnv env;
        env.exe = options_.exe;
        env.scratch_dir = options_.scratch_dir;
        env.searches = &searches_;
        env.cancelled = cancelled.get();
        if (!progress_token.is_null())
          env.progress = [this, progress_token](double done_s, const std::string& message) {
            send({{"jsonrpc", "2.0"},
                  {"method", "notifications/progress"},
                  {"params", {{"progressToken", progress_token}, {"progress", done_s}, {"message", message}}}});
          };
        r = tool->call(arguments, env);
      }
      result = {{"content", json::array({{{"type", "text"}, {"text", r.structured.dump(2)}}})},
                {"structuredContent", r.structured},
                {"isError", r.is_error}};
    } catch (const std::exception& e) {
      result = {{"content", json::array({{{"type", "text"}, {"text", std::string("internal error: ") + e.what()}}})},
                {"isError", true}};
    }
    if (!cancelled->load()) answer(id, std::move(result));
    done->store(true);
  };
  std::lock_guard<std::mutex> lock(calls_mu_);
  std::string key = id.dump();
  if (calls_.count(key)) {
    fail(id, kInvalidRequest, "Invalid request: a call with this id is still running.");
    return;
  }
  Call c;
  c.cancelled = cancelled;
  c.done = done;
  c.thread = std::thread(run);
  calls_.emplace(key, std::move(c));
}

void McpServer::reap_calls(bool wait) {
  std::lock_guard<std::mutex> lock(calls_mu_);
  for (auto it = calls_.begin(); it != calls_.end();) {
    if (wait || it->second.done->load()) {
      it->second.thread.join();
      it = calls_.erase(it);
    } else {
      ++it;
    }
  }
}

void McpServer::cancel_all() {
  std::lock_guard<std::mutex> lock(calls_mu_);
  for (auto& [id, call] : calls_) call.cancelled->store(true);
}

void McpServer::finish() {
  reap_calls(true);
  searches_.stop_all();
  std::error_code ec;
  std::filesystem::remove_all(options_.scratch_dir, ec);
}

}  // namespace cusched::tools::mcp
