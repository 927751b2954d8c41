#pragma once
// A client for OpenAI-compatible chat-completions endpoints (POST
// {base}/chat/completions) over libcurl. It retries rate limits and server
// errors, asks for structured JSON output (strict mode) and falls back to plain
// JSON in the prompt when the server does not support it. The token limit is sent
// as max_completion_tokens (reasoning models refuse max_tokens), and as max_tokens
// only to a server that rejects the newer name. Problems are reported as events,
// never thrown. The API key is sent in the Authorization header only and is
// removed from every text the client returns: replies, prompts, errors, content.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/proposer.h"

namespace cusched::search {

struct LlmConfig {
  std::string base_url;  // e.g. https://api.openai.com/v1 (no trailing /chat/completions)
  std::string model;
  std::string api_key;  // may be empty for local servers
  double connect_timeout_s = 10;
  double total_timeout_s = 300;  // per attempt
  int max_retries = 4;           // extra attempts after a 429, 5xx, timeout or transport error
  double backoff_initial_s = 1;  // doubled after each retry
  double backoff_max_s = 60;     // also caps Retry-After
  std::optional<double> temperature;

  // Fills empty fields from CUSCHED_LLM_BASE_URL, CUSCHED_LLM_MODEL and OPENAI_API_KEY.
  void fill_from_env();
  // Throws a UserError naming the missing setting when base_url or model is empty.
  void require_complete() const;
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::string purpose;  // recorded with the call: "ideas", "implementations", ...
  std::vector<ChatMessage> messages;
  std::optional<nlohmann::json> json_schema;  // ask for a JSON reply matching this schema
  std::string schema_name = "reply";
  int max_completion_tokens = 0;  // 0: server default
};

struct ChatReply {
  bool ok = false;  // a reply with content arrived (it may still be truncated or malformed)
  std::string content;
  std::optional<nlohmann::json> json;  // the parsed reply, when a schema was requested and JSON was found
  std::string finish_reason;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int http_status = 0;
  bool structured = false;  // the server accepted response_format for this call
  std::vector<ProposerEvent> events;
  std::vector<ModelCall> calls;  // one per HTTP attempt, for the store
};

// The transport seam: sends one POST and returns status, body and headers.
struct HttpResponse {
  int status = 0;  // 0 when no response arrived
  std::string body;
  std::string retry_after;  // the Retry-After header, empty when absent
  bool timed_out = false;
  std::string transport_error;  // libcurl's message when no response arrived
};

class LlmClient {
 public:
  explicit LlmClient(LlmConfig config);
  ChatReply chat(const ChatRequest& request);
  const LlmConfig& config() const { return config_; }
  bool structured_output_supported() const { return structured_supported_; }
  // Removes the API key from `text`.
  std::string redact(std::string text) const;

  // Replaces the sleep between retries (tests use it to record the waits).
  void set_sleep(std::function<void(double seconds)> sleep) { sleep_ = std::move(sleep); }

 private:
  HttpResponse post(const std::string& body) const;
  LlmConfig config_;
  bool structured_supported_ = true;
  bool max_completion_tokens_supported_ = true;
  std::function<void(double)> sleep_;
};

// The first JSON value in a model's text: a ```json fenced block if there is one,
// else the first balanced {...} or [...] that parses.
std::optional<nlohmann::json> extract_first_json(const std::string& text);

// True when a reply reads as a refusal ("I'm sorry, but I can't ...") rather than an answer.
bool looks_like_refusal(const std::string& content);

}  // namespace cusched::search
