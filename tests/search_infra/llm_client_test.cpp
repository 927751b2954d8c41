#include "search/llm_client.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "scripted_server.h"
#include "search/store.h"
#include "synthetic_store.h"

using namespace cusched::search;
using namespace cusched::search::testing;

namespace {

const std::string kKey = "sk-test-SECRET-0123456789";

struct ClientFixture : ::testing::Test {
  ScriptedServer server;
  std::vector<double> waits;
  LlmClient make(double timeout_s = 5, int retries = 3) {
    LlmConfig c;
    c.base_url = server.base_url();
    c.model = "test-model";
    c.api_key = kKey;
    c.total_timeout_s = timeout_s;
    c.connect_timeout_s = 2;
    c.max_retries = retries;
    c.backoff_initial_s = 0.5;
    c.backoff_max_s = 10;
    LlmClient client(c);
    client.set_sleep([this](double s) { waits.push_back(s); });
    return client;
  }
  static ChatRequest ask(bool schema) {
    ChatRequest r;
    r.purpose = "ideas";
    r.messages = {{"system", "be brief"}, {"user", "give ideas"}};
    if (schema) r.json_schema = nlohmann::json{{"type", "object"}, {"properties", {{"ideas", {{"type", "array"}}}}}};
    return r;
  }
  static bool has_event(const ChatReply& r, const std::string& kind) {
    for (const auto& e : r.events)
      if (e.kind == kind) return true;
    return false;
  }
};

}  // namespace

TEST(ExtractJson, FencesBareValuesAndNoise) {
  EXPECT_EQ(*extract_first_json("Sure!\n```json\n{\"a\": [1, 2]}\n```\nDone."), (nlohmann::json{{"a", {1, 2}}}));
  EXPECT_EQ(*extract_first_json("Result: {\"s\": \"a } brace\"} trailing {x}"), (nlohmann::json{{"s", "a } brace"}}));
  EXPECT_EQ(*extract_first_json("[1, 2] then {\"b\": 1}"), nlohmann::json::array({1, 2}));
  EXPECT_EQ(*extract_first_json("{not json} but {\"ok\": true}"), (nlohmann::json{{"ok", true}}));
  EXPECT_FALSE(extract_first_json("no json here"));
  EXPECT_FALSE(extract_first_json("{\"cut\": [1, 2"));
}

TEST(Refusal, RecognisesRefusalsOnly) {
  EXPECT_TRUE(looks_like_refusal("I'm sorry, but I can't help with that."));
  EXPECT_TRUE(looks_like_refusal("  I cannot assist with this request."));
  EXPECT_FALSE(looks_like_refusal("1. Tile the rows. I cannot stress enough..."));
  EXPECT_FALSE(looks_like_refusal("{\"ideas\": []}"));
}

TEST(LlmConfigTest, EnvironmentFillsEmptyFieldsOnly) {
  setenv("CUSCHED_LLM_BASE_URL", "http://env-base/v1", 1);
  setenv("CUSCHED_LLM_MODEL", "env-model", 1);
  setenv("OPENAI_API_KEY", "env-key", 1);
  LlmConfig c;
  c.model = "flag-model";
  c.fill_from_env();
  EXPECT_EQ(c.base_url, "http://env-base/v1");
  EXPECT_EQ(c.model, "flag-model");
  EXPECT_EQ(c.api_key, "env-key");
  unsetenv("CUSCHED_LLM_BASE_URL");
  unsetenv("CUSCHED_LLM_MODEL");
  unsetenv("OPENAI_API_KEY");
  LlmConfig empty;
  empty.fill_from_env();
  try {
    empty.require_complete();
    FAIL();
  } catch (const cusched::UserError& e) {
    EXPECT_EQ(e.error().code, "llm-base-url-missing");
  }
}

TEST_F(ClientFixture, PlainSuccess) {
  server.script({reply_with(completion("1. tile\n2. unroll", "stop", 120, 30))});
  auto client = make();
  auto r = client.chat(ask(false));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.content, "1. tile\n2. unroll");
  EXPECT_EQ(r.prompt_tokens, 120);
  EXPECT_EQ(r.completion_tokens, 30);
  EXPECT_TRUE(r.events.empty());
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].purpose, "ideas");
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].authorization, "Bearer " + kKey);
  EXPECT_EQ(got[0].body["model"], "test-model");
  EXPECT_EQ(got[0].body["messages"][1]["content"], "give ideas");
  EXPECT_FALSE(got[0].body.contains("response_format"));
}

TEST_F(ClientFixture, StructuredOutput) {
  server.script({reply_with(completion("{\"ideas\": [\"a\", \"b\"]}"))});
  auto client = make();
  auto r = client.chat(ask(true));
  ASSERT_TRUE(r.ok);
  ASSERT_TRUE(r.json);
  EXPECT_EQ((*r.json)["ideas"][1], "b");
  EXPECT_TRUE(r.structured);
  auto body = server.received()[0].body;
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"]["type"], "object");
}

TEST_F(ClientFixture, MalformedJsonIsAnEvent) {
  server.script({reply_with("this is not json at all"), reply_with(completion("ideas: tile, unroll"))});
  auto client = make();
  auto bad_body = client.chat(ask(true));
  EXPECT_FALSE(bad_body.ok);
  EXPECT_TRUE(has_event(bad_body, "malformed-json"));
  auto no_json = client.chat(ask(true));
  EXPECT_TRUE(has_event(no_json, "malformed-json"));
  EXPECT_FALSE(no_json.json);
}

TEST_F(ClientFixture, RefusalsAreEvents) {
  server.script({reply_with(completion("", "stop", 10, 5, "I can't help with that.")),
                 reply_with(completion("I'm sorry, but I cannot help with optimising this."))});
  auto client = make();
  auto a = client.chat(ask(true));
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(has_event(a, "refusal"));
  EXPECT_EQ(a.prompt_tokens, 10) << "a refused call still counts its tokens";
  auto b = client.chat(ask(true));
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(has_event(b, "refusal"));
}

TEST_F(ClientFixture, TruncationIsAnEvent) {
  server.script({reply_with(completion("{\"ideas\": [\"a\", \"b", "length", 100, 4096))});
  auto client = make();
  auto r = client.chat(ask(true));
  EXPECT_TRUE(has_event(r, "truncated"));
  EXPECT_TRUE(has_event(r, "malformed-json"));
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.completion_tokens, 4096);
}

TEST_F(ClientFixture, RetriesRateLimitHonouringRetryAfterThenSucceeds) {
  server.script({reply_with("{\"error\":\"slow down\"}", 429, "3"), reply_with("{\"error\":\"busy\"}", 503),
                 reply_with(completion("fine"))});
  auto client = make();
  auto r = client.chat(ask(false));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.content, "fine");
  EXPECT_TRUE(has_event(r, "http-429"));
  EXPECT_TRUE(has_event(r, "http-5xx"));
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_DOUBLE_EQ(waits[0], 3.0) << "Retry-After must be honoured";
  EXPECT_DOUBLE_EQ(waits[1], 1.0) << "without Retry-After the backoff doubles from 0.5 s";
  EXPECT_EQ(server.received().size(), 3u);
  EXPECT_EQ(r.calls.size(), 3u);
}

TEST_F(ClientFixture, GivesUpAfterMaxRetries) {
  server.script({reply_with("{}", 500), reply_with("{}", 502), reply_with("{}", 500)});
  auto client = make(5, 2);
  auto r = client.chat(ask(false));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(server.received().size(), 3u);
  EXPECT_EQ(waits.size(), 2u);
}

TEST_F(ClientFixture, HangTimesOut) {
  server.script({[this](const ReceivedRequest&, httplib::Response& res) {
    server.hang(3);
    res.set_content(completion("late"), "application/json");
  }});
  auto client = make(0.3, 0);
  auto start = std::chrono::steady_clock::now();
  auto r = client.chat(ask(false));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has_event(r, "timeout"));
  EXPECT_LT(elapsed, 2.0);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_FALSE(r.calls[0].error.empty());
}

TEST_F(ClientFixture, FallsBackToPlainJsonWhenResponseFormatIsRejected) {
  server.script({reply_with("{\"error\":{\"message\":\"Invalid parameter: 'response_format' of type 'json_schema' is "
                            "not supported with this model.\"}}",
                            400),
                 reply_with(completion("Here you go:\n```json\n{\"ideas\": [\"x\"]}\n```")),
                 reply_with(completion("{\"ideas\": [\"y\"]}"))});
  auto client = make();
  auto r = client.chat(ask(true));
  ASSERT_TRUE(r.ok);
  ASSERT_TRUE(r.json);
  EXPECT_EQ((*r.json)["ideas"][0], "x");
  EXPECT_FALSE(r.structured);
  EXPECT_TRUE(has_event(r, "structured-output-unsupported"));
  EXPECT_FALSE(client.structured_output_supported());
  auto got = server.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].body.contains("response_format"));
  EXPECT_FALSE(got[1].body.contains("response_format"));
  std::string last = got[1].body["messages"].back()["content"];
  EXPECT_NE(last.find("JSON Schema"), std::string::npos);
  EXPECT_TRUE(waits.empty()) << "the fallback is not a retry";
  // Later calls go straight to plain JSON.
  auto again = client.chat(ask(true));
  EXPECT_EQ((*again.json)["ideas"][0], "y");
  EXPECT_FALSE(server.received()[2].body.contains("response_format"));
}

TEST_F(ClientFixture, OtherClientErrorsAreNotRetried) {
  server.script({reply_with("{\"error\":\"bad model\"}", 404)});
  auto client = make();
  auto r = client.chat(ask(true));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(has_event(r, "http-error"));
  EXPECT_EQ(server.received().size(), 1u);
}

TEST(LlmClientTransport, UnreachableServerIsAnEvent) {
  LlmConfig c;
  c.base_url = "http://127.0.0.1:1/v1";  // nothing listens on port 1
  c.model = "m";
  c.max_retries = 1;
  LlmClient client(c);
  std::vector<double> waits;
  client.set_sleep([&](double s) { waits.push_back(s); });
  ChatRequest r;
  r.messages = {{"user", "hi"}};
  auto reply = client.chat(r);
  EXPECT_FALSE(reply.ok);
  ASSERT_FALSE(reply.events.empty());
  EXPECT_EQ(reply.events[0].kind, "transport-error");
  EXPECT_EQ(waits.size(), 1u);
}

// The server echoes the Authorization header in its error body; neither the
// events, the call records, nor the store file may contain the key.
TEST_F(ClientFixture, ApiKeyNeverLeaksIntoEventsCallsOrStore) {
  auto echo = [](const ReceivedRequest& r, httplib::Response& res) {
    res.status = 401;
    res.set_content("{\"error\":\"bad key: " + r.authorization + "\"}", "application/json");
  };
  auto echo_ok = [](const ReceivedRequest& r, httplib::Response& res) {
    res.set_content(completion("you sent " + r.authorization), "application/json");
  };
  server.script({echo, echo_ok});
  auto client = make();
  auto bad = client.chat(ask(false));
  auto good = client.chat(ask(false));
  ASSERT_TRUE(server.received()[0].authorization.find(kKey) != std::string::npos) << "the key must reach the server";
  std::string db = fresh_path("keys.db");
  {
    Store s(db);
    RunInfo info;
    info.problem = "p";
    info.size = "small";
    int64_t run = s.create_run(info);
    int64_t round = s.begin_round(run, 0);
    for (const auto* r : {&bad, &good}) {
      for (const auto& e : r->events) EXPECT_EQ(e.detail.find(kKey), std::string::npos) << e.detail;
      for (const auto& c : r->calls) {
        EXPECT_EQ(c.raw_reply.find(kKey), std::string::npos);
        EXPECT_EQ(c.error.find(kKey), std::string::npos);
        s.add_llm_call(round, c);
      }
    }
    EXPECT_EQ(s.llm_calls(run).size(), 2u);
  }
  for (const char* suffix : {"", "-wal"}) {
    std::ifstream in(db + suffix, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(bytes.str().find(kKey), std::string::npos) << "the key is in " << db << suffix;
  }
  EXPECT_NE(bad.calls[0].raw_reply.find("[redacted]"), std::string::npos);
}
