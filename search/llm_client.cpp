#include "search/llm_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <curl/curl.h>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::search {

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string excerpt(const std::string& s, size_t n = 300) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

size_t write_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t read_header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos && lower(line.substr(0, colon)) == "retry-after") {
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r\n") + 1);
    *static_cast<std::string*>(user) = v;
  }
  return size * n;
}

std::optional<double> parse_retry_after(const std::string& v) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  double s = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || s < 0) return std::nullopt;  // HTTP dates fall back to backoff
  return s;
}

// Finds the end of the JSON value starting at text[start] ('{' or '['), honouring strings.
std::optional<size_t> balanced_end(const std::string& text, size_t start) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::nullopt;
}

void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

void LlmConfig::fill_from_env() {
  if (base_url.empty()) base_url = env_or_empty("CUSCHED_LLM_BASE_URL");
  if (model.empty()) model = env_or_empty("CUSCHED_LLM_MODEL");
  if (api_key.empty()) api_key = env_or_empty("OPENAI_API_KEY");
}

void LlmConfig::require_complete() const {
  if (base_url.empty())
    fail("llm-base-url-missing", "No LLM endpoint is configured.",
         "Pass --llm-base-url or set CUSCHED_LLM_BASE_URL, e.g. https://api.openai.com/v1.");
  if (model.empty())
    fail("llm-model-missing", "No LLM model is configured.", "Pass --llm-model or set CUSCHED_LLM_MODEL.");
}

std::optional<nlohmann::json> extract_first_json(const std::string& text) {
  // Each candidate text is parsed with the input limits (size, nesting, duplicate keys),
  // and at most kTries candidates are tried, so a hostile reply costs linear time.
  constexpr int kTries = 32;
  int tries = 0;
  auto parse = [&](const std::string& candidate) -> std::optional<nlohmann::json> {
    ++tries;
    try {
      return parse_json_input(candidate, "The reply", "");
    } catch (const UserError&) {
      return std::nullopt;
    }
  };
  // A fenced block wins: ```json ... ``` (or a bare ``` fence holding JSON).
  for (size_t pos = text.find("```"); pos != std::string::npos && tries < kTries; pos = text.find("```", pos + 3)) {
    size_t body = text.find('\n', pos);
    if (body == std::string::npos) break;
    size_t close = text.find("```", body);
    if (close == std::string::npos) break;
    if (auto j = parse(text.substr(body + 1, close - body - 1))) return j;
    pos = close;
  }
  for (size_t i = 0; i < text.size() && tries < kTries; ++i) {
    if (text[i] != '{' && text[i] != '[') continue;
    auto end = balanced_end(text, i);
    if (!end) {
      ++tries;
      continue;
    }
    if (auto j = parse(text.substr(i, *end - i))) return j;
  }
  return std::nullopt;
}

bool looks_like_refusal(const std::string& content) {
  std::string s = content;
  s.erase(0, s.find_first_not_of(" \t\r\n\"'"));
  s = lower(s.substr(0, 120));
  for (const char* p : {"i'm sorry", "i am sorry", "sorry, ", "i can't", "i cannot", "i can not", "i won't",
                        "i will not", "i'm unable", "i am unable", "i'm not able", "as an ai"})
    if (s.rfind(p, 0) == 0) return true;
  return false;
}

LlmClient::LlmClient(LlmConfig config) : config_(std::move(config)) {
  ensure_curl_initialised();
  sleep_ = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
}

std::string LlmClient::redact(std::string text) const {
  if (config_.api_key.empty()) return text;
  for (size_t p = text.find(config_.api_key); p != std::string::npos; p = text.find(config_.api_key, p))
    text.replace(p, config_.api_key.size(), "[redacted]");
  return text;
}

HttpResponse LlmClient::post(const std::string& body) const {
  HttpResponse r;
  CURL* curl = curl_easy_init();
  if (!curl) {
    r.transport_error = "libcurl could not start a request";
    return r;
  }
  std::string url = config_.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/chat/completions";
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!config_.api_key.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + config_.api_key).c_str());
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.retry_after);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout_s * 1000));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.total_timeout_s * 1000));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    r.status = static_cast<int>(status);
  } else {
    r.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    r.transport_error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return r;
}

ChatReply LlmClient::chat(const ChatRequest& request) {
  ChatReply reply;
  int retries = 0;
  double backoff = config_.backoff_initial_s;
  auto event = [&](std::string kind, std::string detail) {
    reply.events.push_back({std::move(kind), redact(std::move(detail))});
  };
  nlohmann::json prompt = nlohmann::json::array();
  for (const auto& m : request.messages) prompt.push_back({{"role", m.role}, {"content", m.content}});
  const std::string prompt_text = redact(prompt.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto record = [&](const HttpResponse& r, std::string error, std::string finish = "", int64_t pt = 0, int64_t ct = 0) {
    reply.calls.push_back(
        {request.purpose, pt, ct, std::move(finish), redact(std::move(error)), redact(r.body), prompt_text});
  };
  // Waits before the next attempt; false when the retries are used up.
  auto retry = [&](std::optional<double> retry_after) {
    if (retries >= config_.max_retries) return false;
    ++retries;
    double wait = std::min(retry_after.value_or(backoff), config_.backoff_max_s);
    backoff = std::min(backoff * 2, config_.backoff_max_s);
    sleep_(wait);
    return true;
  };

  for (;;) {
    const bool structured = request.json_schema && structured_supported_;
    nlohmann::json body = {{"model", config_.model}};
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    if (request.json_schema && !structured && !messages.empty()) {
      auto& last = messages.back()["content"];
      last = last.get<std::string>() +
             "\n\nReply with one JSON value only (no other text), matching this JSON Schema:\n" +
             request.json_schema->dump();
    }
    body["messages"] = messages;
    if (structured)
      body["response_format"] = {
          {"type", "json_schema"},
          {"json_schema", {{"name", request.schema_name}, {"schema", *request.json_schema}, {"strict", true}}}};
    if (request.max_completion_tokens > 0)
      body[max_completion_tokens_supported_ ? "max_completion_tokens" : "max_tokens"] = request.max_completion_tokens;
    if (config_.temperature) body["temperature"] = *config_.temperature;

    HttpResponse r = post(body.dump());
    reply.http_status = r.status;
    if (r.status == 0) {
      std::string kind = r.timed_out ? "timeout" : "transport-error";
      std::string detail = r.timed_out ? "No reply from " + config_.base_url + " within " +
                                             std::to_string(config_.total_timeout_s) + " s: " + r.transport_error
                                       : "Could not reach " + config_.base_url + ": " + r.transport_error;
      event(kind, detail);
      record(r, detail);
      if (retry(std::nullopt)) continue;
      return reply;
    }
    if (r.status == 429 || r.status >= 500) {
      std::string kind = r.status == 429 ? "http-429" : "http-5xx";
      std::string detail = "HTTP " + std::to_string(r.status) +
                           (r.retry_after.empty() ? "" : " (Retry-After: " + r.retry_after + ")") + ": " +
                           excerpt(r.body);
      event(kind, detail);
      record(r, detail);
      if (retry(parse_retry_after(r.retry_after))) continue;
      return reply;
    }
    if (r.status == 400 && request.max_completion_tokens > 0 && max_completion_tokens_supported_ &&
        lower(r.body).find("max_completion_tokens") != std::string::npos) {
      std::string detail =
          "The server rejected max_completion_tokens; sending the limit as max_tokens instead: " + excerpt(r.body);
      event("max-completion-tokens-unsupported", detail);
      record(r, detail);
      max_completion_tokens_supported_ = false;
      continue;
    }
    if (r.status == 400 && structured) {
      std::string b = lower(r.body);
      if (b.find("response_format") != std::string::npos || b.find("json_schema") != std::string::npos) {
        std::string detail =
            "The server rejected response_format; asking for plain JSON in the prompt instead: " + excerpt(r.body);
        event("structured-output-unsupported", detail);
        record(r, detail);
        structured_supported_ = false;
        continue;
      }
    }
    if (r.status < 200 || r.status >= 300) {
      std::string detail = "HTTP " + std::to_string(r.status) + ": " + excerpt(r.body);
      event("http-error", detail);
      record(r, detail);
      return reply;
    }

    nlohmann::json parsed = nlohmann::json::value_t::discarded;
    try {
      parsed = parse_json_input(r.body, "The server's reply", "");
    } catch (const UserError&) {}
    const nlohmann::json* message = nullptr;
    if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("choices") && parsed["choices"].is_array() &&
        !parsed["choices"].empty() && parsed["choices"][0].is_object() && parsed["choices"][0].contains("message") &&
        parsed["choices"][0]["message"].is_object())
      message = &parsed["choices"][0]["message"];
    if (!message) {
      std::string detail = "The server's reply is not a chat completion: " + excerpt(r.body);
      event("malformed-json", detail);
      record(r, detail);
      return reply;
    }
    const auto& choice = parsed["choices"][0];
    reply.finish_reason = choice.contains("finish_reason") && choice["finish_reason"].is_string()
                              ? choice["finish_reason"].get<std::string>()
                              : "";
    if (parsed.contains("usage") && parsed["usage"].is_object()) {
      reply.prompt_tokens = parsed["usage"].value("prompt_tokens", int64_t{0});
      reply.completion_tokens = parsed["usage"].value("completion_tokens", int64_t{0});
    }
    reply.structured = structured;
    record(r, "", reply.finish_reason, reply.prompt_tokens, reply.completion_tokens);
    if (message->contains("refusal") && (*message)["refusal"].is_string() &&
        !(*message)["refusal"].get<std::string>().empty()) {
      event("refusal", excerpt((*message)["refusal"].get<std::string>()));
      return reply;
    }
    reply.content = message->contains("content") && (*message)["content"].is_string()
                        ? redact((*message)["content"].get<std::string>())
                        : "";
    if (reply.finish_reason == "length")
      event("truncated", "The reply stopped at the token limit (finish_reason \"length\") after " +
                             std::to_string(reply.completion_tokens) + " completion tokens.");
    if (request.json_schema) {
      reply.json = extract_first_json(reply.content);
      if (!reply.json) {
        if (looks_like_refusal(reply.content)) {
          event("refusal", excerpt(reply.content));
          return reply;
        }
        event("malformed-json", "The reply holds no JSON value: " + excerpt(reply.content));
      }
    } else if (looks_like_refusal(reply.content)) {
      event("refusal", excerpt(reply.content));
      return reply;
    }
    reply.ok = true;
    return reply;
  }
}

}  // namespace cusched::search
