// `cusched search --proposer llm` against a scripted OpenAI-compatible server on
// loopback: the model's replies are built only from what the prompt says, the request
// carries a strict-mode schema and max_completion_tokens, prompts and replies are stored
// with the API key redacted, and a model that never answers fails the search.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scripted_server.h"
#include "search/store.h"
#include "tests/temp_store.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::completion;
using testing::ReceivedRequest;
using testing::ScriptedServer;

const char* kKey = "sk-test-4f0c2e9a-SECRET";

std::string llm_cli_store(const std::string& name) { return test::fresh_store_path("llm_cli", name); }

struct ChildRun {
  int exit_code = -1;
  std::string out;
};

// Runs cusched with OPENAI_API_KEY set, stdout captured, stderr passed through.
ChildRun run_cusched(const std::vector<std::string>& args) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setenv("OPENAI_API_KEY", kKey, 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  ChildRun r;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string user_prompt(const ReceivedRequest& r) {
  std::string all;
  for (const auto& m : r.body["messages"]) all += m["content"].get<std::string>() + "\n";
  return all;
}

// The schedule the prompt's "Baseline schedule" section shows, as JSON.
json baseline_from_prompt(const std::string& prompt) {
  size_t at = prompt.find("## Baseline schedule");
  if (at == std::string::npos) return nullptr;
  size_t open = prompt.find("```json\n", at);
  size_t close = prompt.find("\n```", open + 8);
  if (open == std::string::npos || close == std::string::npos) return nullptr;
  return json::parse(prompt.substr(open + 8, close - open - 8), nullptr, false);
}

// Strict mode's rules, checked independently of the code under test: every object lists
// each property as required and sets additionalProperties false; no oneOf/allOf.
std::string strict_violation(const json& s, const std::string& where) {
  if (s.is_array()) {
    for (size_t i = 0; i < s.size(); ++i)
      if (auto v = strict_violation(s[i], where + "[" + std::to_string(i) + "]"); !v.empty()) return v;
    return {};
  }
  if (!s.is_object()) return {};
  for (const char* bad : {"oneOf", "allOf", "not", "minLength", "$schema", "default"})
    if (s.contains(bad)) return where + " uses " + bad;
  if (s.contains("properties")) {
    if (s.value("additionalProperties", json(true)) != false) return where + " allows additional properties";
    for (const auto& [name, prop] : s["properties"].items()) {
      const json& req = s.value("required", json::array());
      if (std::find(req.begin(), req.end(), name) == req.end()) return where + " does not require " + name;
      if (auto v = strict_violation(prop, where + "." + name); !v.empty()) return v;
    }
  }
  for (const char* k : {"items", "anyOf", "$defs"})
    if (s.contains(k))
      if (auto v = strict_violation(s[k], where + "." + k); !v.empty()) return v;
  return {};
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LlmSearchCli, FirstRoundProposalFromThePromptAloneIsLegal) {
  ScriptedServer server;
  std::string seen_prompt;
  server.script({
      [&](const ReceivedRequest& r, httplib::Response& res) {
        seen_prompt = user_prompt(r);
        res.set_content(completion(json({{"ideas", {std::string("smaller thread blocks; key ") + kKey}}}).dump()),
                        "application/json");
      },
      [&](const ReceivedRequest& r, httplib::Response& res) {
        // Only what the prompt says: the baseline's own stage and loop names, with the
        // thread split halved and an optional argument left out as null.
        json steps = baseline_from_prompt(user_prompt(r));
        json proposal = json::array();
        bool halved = false;
        for (auto step : steps) {
          if (!halved && step.value("op", "") == "split" && step.value("factor", 0) >= 64) {
            step["factor"] = step["factor"].get<int64_t>() / 2;
            halved = true;
          }
          if (step.value("op", "") == "bind") step["unroll_hint"] = nullptr;
          proposal.push_back(step);
        }
        json reply = {{"proposals", {{{"idea_index", 1}, {"based_on", nullptr}, {"schedule", proposal}}}}};
        res.set_content(completion(reply.dump()), "application/json");
      },
  });
  std::string db = llm_cli_store("legal");
  ChildRun run = run_cusched({CUSCHED_BIN,
                              "search",
                              "-p",
                              "relu",
                              "--backend",
                              "interp",
                              "--no-audit",
                              "--rounds",
                              "1",
                              "--ideas",
                              "1",
                              "--per-idea",
                              "1",
                              "--proposer",
                              "llm",
                              "--llm-base-url",
                              server.base_url(),
                              "--llm-model",
                              "scripted",
                              "--llm-max-completion-tokens",
                              "3000",
                              "--llm-temperature",
                              "0.2",
                              "--db",
                              db,
                              "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out;
  json summary = json::parse(run.out);
  EXPECT_EQ(summary["store"], db);

  // The prompt names the algorithm, the stage, every loop, the sizes and how candidates
  // are judged on a CPU-only run (nothing timed, no L2 flushing claimed).
  EXPECT_NE(seen_prompt.find("stage `Y`"), std::string::npos) << seen_prompt.substr(0, 3000);
  for (const char* loop : {"`b`", "`c`", "`h`", "`w`"}) EXPECT_NE(seen_prompt.find(loop), std::string::npos) << loop;
  EXPECT_NE(seen_prompt.find("torch"), std::string::npos);
  EXPECT_NE(seen_prompt.find("milliseconds"), std::string::npos);
  EXPECT_NE(seen_prompt.find("Nothing is timed"), std::string::npos);
  EXPECT_EQ(seen_prompt.find("L2 cache flushed"), std::string::npos);
  EXPECT_NE(seen_prompt.find("'small'"), std::string::npos);
  EXPECT_NE(seen_prompt.find("'bench'"), std::string::npos);

  auto requests = server.received();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& r : requests) {
    EXPECT_EQ(r.body.value("max_completion_tokens", 0), 3000);
    EXPECT_FALSE(r.body.contains("max_tokens"));
    EXPECT_DOUBLE_EQ(r.body.value("temperature", 0.0), 0.2);
    ASSERT_TRUE(r.body.contains("response_format"));
    const json& schema = r.body["response_format"]["json_schema"]["schema"];
    EXPECT_EQ(strict_violation(schema, "schema"), "") << schema.dump().substr(0, 2000);
    EXPECT_EQ(r.authorization, std::string("Bearer ") + kKey);
  }

  Store store(db, Store::Mode::read_only);
  auto run_id = store.latest_run();
  ASSERT_TRUE(run_id);
  int llm_verified = 0;
  for (const auto& c : store.candidates(*run_id)) {
    if (c.idea_source != "llm") continue;
    auto e = store.evaluation(c.id);
    ASSERT_TRUE(e) << "candidate " << c.id << " was not evaluated";
    EXPECT_TRUE(e->verified) << e->verdict << ": " << e->reason;
    llm_verified += e->verified;
  }
  EXPECT_EQ(llm_verified, 1);
  auto calls = store.llm_calls(*run_id);
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& c : calls) {
    EXPECT_NE(c.call.prompt.find("stage `Y`"), std::string::npos) << "the prompt is stored";
    EXPECT_FALSE(c.call.raw_reply.empty());
  }
  // The key the reply echoed is redacted everywhere in the store.
  for (const char* ext : {"", "-wal"}) EXPECT_EQ(file_bytes(db + ext).find(kKey), std::string::npos) << ext;

  // The report shows each call's prompt and reply, and the key in neither.
  const std::string html = db + ".report.html";
  ChildRun report = run_cusched({CUSCHED_BIN, "report", db, "-o", html});
  ASSERT_EQ(report.exit_code, 0) << report.out;
  const std::string page = file_bytes(html);
  EXPECT_NE(page.find("ideas call: prompt and reply"), std::string::npos);
  EXPECT_NE(page.find("implementations call: prompt and reply"), std::string::npos);
  EXPECT_NE(page.find("stage `Y`"), std::string::npos) << "the prompt's text is on the page";
  EXPECT_NE(page.find("<h4>reply</h4>"), std::string::npos);
  EXPECT_NE(page.find("[redacted]"), std::string::npos) << "the echoed key shows as redacted";
  EXPECT_EQ(page.find(kKey), std::string::npos);
}

TEST(LlmSearchCli, AModelThatNeverAnswersFailsTheSearch) {
  ScriptedServer server;
  auto refuse = [](const ReceivedRequest&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"error": {"message": "Unsupported model 'scripted'."}})", "application/json");
  };
  server.script({refuse, refuse, refuse, refuse});
  std::string db = llm_cli_store("down");
  ChildRun run = run_cusched({CUSCHED_BIN,
                              "search",
                              "-p",
                              "relu",
                              "--backend",
                              "interp",
                              "--no-audit",
                              "--rounds",
                              "2",
                              "--ideas",
                              "1",
                              "--per-idea",
                              "1",
                              "--proposer",
                              "llm",
                              "--llm-base-url",
                              server.base_url(),
                              "--llm-model",
                              "scripted",
                              "--db",
                              db,
                              "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  json summary = json::parse(run.out);
  EXPECT_FALSE(summary["ok"].get<bool>());
  EXPECT_EQ(summary["error"]["code"], "llm-unavailable");
  EXPECT_NE(summary["error"]["message"].get<std::string>().find("Unsupported model"), std::string::npos);
  // The second round does not call a model that gave no reply in the first.
  EXPECT_EQ(server.received().size(), 1u);
  Store store(db, Store::Mode::read_only);
  auto calls = store.llm_calls(*store.latest_run());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_NE(calls[0].call.raw_reply.find("Unsupported model"), std::string::npos);
}

}  // namespace
}  // namespace cusched::search
