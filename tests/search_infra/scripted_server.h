#pragma once
// A real HTTP server on 127.0.0.1 (random port) that answers POST
// /v1/chat/completions from a script: one handler per request, in order.
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace cusched::search::testing {

struct ReceivedRequest {
  nlohmann::json body;
  std::string authorization;
};

class ScriptedServer {
 public:
  using Step = std::function<void(const ReceivedRequest&, httplib::Response&)>;

  ScriptedServer() {
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      ReceivedRequest r{nlohmann::json::parse(req.body, nullptr, false), req.get_header_value("Authorization")};
      Step step;
      {
        std::lock_guard<std::mutex> lock(mu_);
        received_.push_back(r);
        if (next_ < steps_.size()) step = steps_[next_++];
      }
      if (step)
        step(r, res);
      else
        res.status = 500, res.set_content("{\"error\":\"script exhausted\"}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ScriptedServer() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }

  void script(std::vector<Step> steps) {
    std::lock_guard<std::mutex> lock(mu_);
    steps_ = std::move(steps);
    next_ = 0;
  }
  std::vector<ReceivedRequest> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  // Sleeps up to `seconds`, returning early when the server shuts down.
  void hang(double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!stopping_ && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<Step> steps_;
  size_t next_ = 0;
  std::vector<ReceivedRequest> received_;
  std::atomic<bool> stopping_{false};
};

// A chat-completions reply body.
inline std::string completion(const std::string& content, const std::string& finish = "stop", int prompt = 100,
                              int completion_tokens = 20, const nlohmann::json& refusal = nullptr) {
  nlohmann::json message = {{"role", "assistant"}, {"content", content}};
  if (!refusal.is_null()) message["refusal"] = refusal, message["content"] = nullptr;
  return nlohmann::json{{"id", "chatcmpl-1"},
                        {"object", "chat.completion"},
                        {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
                        {"usage",
                         {{"prompt_tokens", prompt},
                          {"completion_tokens", completion_tokens},
                          {"total_tokens", prompt + completion_tokens}}}}
      .dump();
}

inline ScriptedServer::Step reply_with(std::string body, int status = 200, std::string retry_after = "") {
  return [body, status, retry_after](const ReceivedRequest&, httplib::Response& res) {
    res.status = status;
    if (!retry_after.empty()) res.set_header("Retry-After", retry_after);
    res.set_content(body, "application/json");
  };
}

}  // namespace cusched::search::testing
