// `cusched mcp` as a child process with pipes: the JSON-RPC and MCP edge cases a client
// of any quality can send, each answered without ending the server.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using nlohmann::json;

class Server {
 public:
  Server() {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 2);
      close(in[1]);
      close(out[0]);
      execl(CUSCHED_BINARY, CUSCHED_BINARY, "mcp", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Server() {
    if (to_ >= 0) close(to_);
    int status = 0;
    for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(50000);
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    close(from_);
  }
  void send_line(const std::string& line) {
    std::string l = line + "\n";
    ASSERT_EQ(write(to_, l.data(), l.size()), static_cast<ssize_t>(l.size()));
  }
  void send(const json& j) { send_line(j.dump()); }
  // The next line from the server, or null after `timeout_s`.
  json next(double timeout_s = 60) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return json::parse(line);  // every line the server writes is JSON
      }
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count());
      if (left <= 0) return nullptr;
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) return nullptr;
      char buf[65536];
      ssize_t n = read(from_, buf, sizeof buf);
      if (n <= 0) return nullptr;
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }
  // The answer to request `id`; notifications are skipped, other answers kept for later.
  json answer(const json& id, double timeout_s = 120) {
    for (size_t i = 0; i < held_.size(); ++i)
      if (held_[i]["id"] == id) {
        json m = held_[i];
        held_.erase(held_.begin() + static_cast<long>(i));
        return m;
      }
    for (;;) {
      json m = next(timeout_s);
      if (m.is_null() || (m.contains("id") && m["id"] == id)) return m;
      if (m.contains("id")) held_.push_back(m);
    }
  }
  json request(int id, const std::string& method, const json& params = json::object()) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return answer(id);
  }
  void initialize(const std::string& version = "2025-06-18") {
    json r = request(0, "initialize",
                     {{"protocolVersion", version},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }
  void close_input() {
    close(to_);
    to_ = -1;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
  std::vector<json> held_;
};

TEST(McpProtocol, NegotiatesTheProtocolVersion) {
  Server s;
  json r = s.request(1, "initialize",
                     {{"protocolVersion", "2025-06-18"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  EXPECT_EQ(r["jsonrpc"], "2.0");
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "cusched");

  Server other;
  json old = other.request(1, "initialize", {{"protocolVersion", "1999-01-01"}, {"capabilities", json::object()}});
  // An unknown version is answered with one the server speaks: the newest.
  std::string v = old["result"]["protocolVersion"];
  EXPECT_NE(v, "1999-01-01");
  EXPECT_GE(v, "2025-06-18");
}

TEST(McpProtocol, MalformedJsonIsAParseErrorAndTheServerReadsOn) {
  Server s;
  s.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
  json e = s.next();
  ASSERT_FALSE(e.is_null());
  EXPECT_EQ(e["error"]["code"], -32700);
  EXPECT_TRUE(e["id"].is_null());
  s.send_line("[1, 2]");  // a batch: refused
  EXPECT_EQ(s.next()["error"]["code"], -32600);
  s.send_line("\"just a string\"");
  EXPECT_EQ(s.next()["error"]["code"], -32600);
  s.send({{"jsonrpc", "1.0"}, {"id", 7}, {"method", "ping"}});
  json wrong_version = s.next();
  EXPECT_EQ(wrong_version["error"]["code"], -32600);
  EXPECT_EQ(wrong_version["id"], 7);
  // Still alive: ping is answered.
  json pong = s.request(2, "ping");
  EXPECT_EQ(pong["result"], json::object());
}

TEST(McpProtocol, UnknownMethodsAndToolsAreJsonRpcErrors) {
  Server s;
  json before = s.request(1, "tools/list");
  EXPECT_EQ(before["error"]["code"], -32600) << "tools/list before initialize";
  s.initialize();
  EXPECT_EQ(s.request(2, "resources/list")["error"]["code"], -32601);
  EXPECT_EQ(s.request(3, "no/such/method")["error"]["code"], -32601);
  EXPECT_EQ(s.request(4, "tools/call", {{"name", "no_such_tool"}, {"arguments", json::object()}})["error"]["code"],
            -32602);
  EXPECT_EQ(s.request(5, "tools/call", {{"arguments", json::object()}})["error"]["code"], -32602);
  // A notification of an unknown method gets no answer; the next request still does.
  s.send({{"jsonrpc", "2.0"}, {"method", "notifications/unknown"}});
  EXPECT_EQ(s.request(6, "ping")["id"], 6);
}

TEST(McpProtocol, ToolsListHasSchemas) {
  Server s;
  s.initialize();
  json r = s.request(1, "tools/list");
  ASSERT_TRUE(r["result"]["tools"].is_array());
  EXPECT_GE(r["result"]["tools"].size(), 13u);
  for (const auto& t : r["result"]["tools"]) {
    EXPECT_TRUE(t["name"].is_string());
    EXPECT_FALSE(t["description"].get<std::string>().empty()) << t["name"];
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
  }
}

TEST(McpProtocol, ToolFailuresAreResultsWithIsError) {
  Server s;
  s.initialize();
  json bad_args = s.request(1, "tools/call", {{"name", "describe_problem"}, {"arguments", {{"problem", 12}}}});
  ASSERT_TRUE(bad_args.contains("result")) << bad_args.dump();
  EXPECT_TRUE(bad_args["result"]["isError"].get<bool>());
  EXPECT_EQ(bad_args["result"]["structuredContent"]["error"]["code"], "bad-arguments");

  json missing = s.request(2, "tools/call", {{"name", "validate_schedule"}, {"arguments", {{"problem", "softmax"}}}});
  EXPECT_TRUE(missing["result"]["isError"].get<bool>());

  json unknown = s.request(3, "tools/call", {{"name", "describe_problem"}, {"arguments", {{"problem", "nope"}}}});
  EXPECT_TRUE(unknown["result"]["isError"].get<bool>());
  EXPECT_EQ(unknown["result"]["structuredContent"]["error"]["code"], "unknown-problem");
  ASSERT_EQ(unknown["result"]["content"][0]["type"], "text");
  // The text content is the structured content, printed.
  EXPECT_EQ(json::parse(unknown["result"]["content"][0]["text"].get<std::string>()),
            unknown["result"]["structuredContent"]);

  json status = s.request(4, "tools/call", {{"name", "stop_search"}, {"arguments", {{"store", "/nonexistent.db"}}}});
  EXPECT_TRUE(status["result"]["isError"].get<bool>());
  EXPECT_EQ(s.request(5, "ping")["result"], json::object());
}

TEST(McpProtocol, ToolResultsCarryStructuredContent) {
  Server s;
  s.initialize();
  json r = s.request(1, "tools/call", {{"name", "list_problems"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_FALSE(r["result"]["isError"].get<bool>());
  const json& problems = r["result"]["structuredContent"]["result"];
  ASSERT_TRUE(problems.is_array());
  bool softmax = false;
  for (const auto& p : problems) softmax = softmax || p["name"] == "softmax";
  EXPECT_TRUE(softmax);
}

TEST(McpProtocol, PingIsAnsweredWhileAToolRuns) {
  Server s;
  s.initialize();
  s.send({{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "tools/call"},
          {"params",
           {{"name", "run_schedule"},
            {"arguments", {{"problem", "softmax"}, {"schedule", "baseline"}, {"backend", "interp"}}}}}});
  json pong = s.request(2, "ping");
  EXPECT_EQ(pong["id"], 2);
  json run = s.answer(1, 300);
  ASSERT_TRUE(run.contains("result")) << run.dump();
  EXPECT_EQ(run["result"]["structuredContent"]["verdict"], "ok") << run.dump().substr(0, 2000);
}

TEST(McpProtocol, EndOfInputEndsTheServer) {
  Server s;
  s.initialize();
  s.close_input();
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 200 && done == 0; ++i) {
    done = waitpid(s.pid(), &status, WNOHANG);
    if (done == 0) usleep(50000);
  }
  ASSERT_EQ(done, s.pid()) << "the server exits when its input ends";
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
