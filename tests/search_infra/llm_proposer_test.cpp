#include "search/llm_proposer.h"

#include <gtest/gtest.h>

#include "scripted_server.h"

using namespace cusched::search;
using namespace cusched::search::testing;

namespace {

ProposalContext context() {
  ProposalContext c;
  c.problem_name = "softmax";
  c.problem_description = "y[i, j] = exp(x[i, j] - max_j x) / sum_j exp(...); x is (4096, 65536) f32; atol 1e-5.";
  c.primitive_reference = "## split\nSplits a loop.\n## bind\nBinds a loop to a GPU axis.";
  c.schedule_schema = {{"type", "array"}, {"items", {{"type", "object"}}}};
  TriedCandidate best;
  best.idea = "one block per row";
  best.schedule = nlohmann::json::array({{{"op", "bind"}, {"loop", "i"}, {"axis", "blockIdx.x"}}});
  best.verdict = "ok";
  best.median_ms = 0.9;
  best.pct_of_floor = 55;
  best.cuda_source = "__global__ void best_kernel() {}";
  best.audit_findings = nlohmann::json::array({{{"line", 1}, {"message", "uncoalesced"}}});
  best.candidate_id = 17;
  c.best.push_back(best);
  TriedCandidate fail;
  fail.idea = "bind k to blocks";
  fail.schedule = nlohmann::json::array({{{"op", "bind"}, {"loop", "k"}}});
  fail.verdict = "reduction-loop-on-block-axis";
  fail.reason = "binding k races";
  fail.candidate_id = 18;
  c.failures.push_back(fail);
  c.round = 2;
  return c;
}

LlmClient make_client(ScriptedServer& server) {
  LlmConfig c;
  c.base_url = server.base_url();
  c.model = "m";
  c.max_retries = 0;
  c.total_timeout_s = 5;
  return LlmClient(c);
}

bool has_event_of_kind(const RoundProposals& r, const std::string& kind) {
  for (const auto& e : r.events)
    if (e.kind == kind) return true;
  return false;
}

}  // namespace

TEST(LlmProposer, TwoCallsGiveIdeasThenSchedules) {
  ScriptedServer server;
  nlohmann::json impl = {
      {"proposals",
       {{{"idea_index", 1}, {"based_on", 17}, {"schedule", {{{"op", "split"}, {"factor", 4}}}}},
        {{"idea_index", 1}, {"based_on", 0}, {"schedule", {{{"op", "split"}, {"factor", 8}}}}},
        {{"idea_index", 1}, {"based_on", 0}, {"schedule", {{{"op", "split"}, {"factor", 16}}}}},  // over per_idea
        {{"idea_index", 2}, {"based_on", 999}, {"schedule", {{{"op", "unroll"}}}}},               // unknown parent
        {{"idea_index", 3}, {"based_on", 0}, {"schedule", {{{"op", "unroll"}}}}},                 // no idea 3
        {{"idea_index", 2}, {"based_on", 0}, {"schedule", {{"op", "not a list"}}}}}}};
  server.script(
      {reply_with(completion("{\"ideas\": [\"warp-per-row reduction\", \"vectorize loads\"]}", "stop", 1000, 50)),
       reply_with(completion(impl.dump(), "stop", 1500, 300))});
  auto client = make_client(server);
  LlmProposer p(client);
  auto out = p.propose(context(), 2, 2);
  ASSERT_EQ(out.ideas.size(), 2u);
  EXPECT_EQ(out.ideas[1], "vectorize loads");
  ASSERT_EQ(out.proposals.size(), 3u);
  EXPECT_EQ(out.proposals[0].idea, "warp-per-row reduction");
  EXPECT_EQ(out.proposals[0].parent, 17);
  EXPECT_EQ(out.proposals[1].schedule[0]["factor"], 8);
  EXPECT_FALSE(out.proposals[1].parent);
  EXPECT_EQ(out.proposals[2].idea, "vectorize loads");
  EXPECT_FALSE(out.proposals[2].parent) << "a parent the prompt never showed is dropped";
  int bad = 0;
  for (const auto& e : out.events) bad += e.kind == "bad-proposal";
  EXPECT_EQ(bad, 3);
  EXPECT_EQ(out.prompt_tokens, 2500);
  EXPECT_EQ(out.completion_tokens, 350);
  EXPECT_EQ(p.tokens_used(), 2850);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].purpose, "ideas");
  EXPECT_EQ(out.calls[1].purpose, "implementations");

  // What the model was shown: the problem, primitives, best schedule with CUDA,
  // timing, % of floor, audit findings and the failure's error; and the ideas.
  auto got = server.received();
  ASSERT_EQ(got.size(), 2u);
  std::string first = got[0].body["messages"][1]["content"];
  for (const char* needle : {"softmax", "## split", "best_kernel", "0.9 ms", "55% of floor", "uncoalesced",
                             "binding k races", "candidate id 17", "Propose 2"})
    EXPECT_NE(first.find(needle), std::string::npos) << needle;
  std::string second = got[1].body["messages"][1]["content"];
  EXPECT_NE(second.find("1. warp-per-row reduction\n2. vectorize loads"), std::string::npos);
  EXPECT_EQ(got[1].body["response_format"]["json_schema"]["schema"]["properties"]["proposals"]["items"]["properties"]
                       ["schedule"],
            context().schedule_schema);
}

TEST(LlmProposer, NumberedListIdeasWhenNoJson) {
  ScriptedServer server;
  server.script({reply_with(completion("Ideas:\n1. tile rows\n2) unroll the inner loop\n3. **use shuffles**")),
                 reply_with(completion("{\"proposals\": []}"))});
  auto client = make_client(server);
  LlmProposer p(client);
  auto out = p.propose(context(), 2, 1);
  ASSERT_EQ(out.ideas.size(), 2u) << "only the K ideas asked for are kept";
  EXPECT_EQ(out.ideas[0], "tile rows");
  EXPECT_EQ(out.ideas[1], "unroll the inner loop");
  EXPECT_TRUE(out.proposals.empty());
}

TEST(LlmProposer, RefusalStopsTheRoundWithAnEvent) {
  ScriptedServer server;
  server.script({reply_with(completion("", "stop", 10, 2, "I can't help with that."))});
  auto client = make_client(server);
  LlmProposer p(client);
  auto out = p.propose(context(), 3, 1);
  EXPECT_TRUE(out.ideas.empty());
  EXPECT_TRUE(has_event_of_kind(out, "refusal"));
  EXPECT_EQ(server.received().size(), 1u) << "no implementations call after a refusal";
}

TEST(LlmProposer, TokenBudgetsStopProposing) {
  ScriptedServer server;
  server.script({reply_with(completion("{\"ideas\": [\"a\"]}", "stop", 900, 200))});
  auto client = make_client(server);
  LlmProposerConfig cfg;
  cfg.run_token_budget = 1000;
  LlmProposer p(client, cfg);
  auto out = p.propose(context(), 1, 1);
  EXPECT_EQ(out.ideas.size(), 1u);
  EXPECT_TRUE(out.proposals.empty());
  EXPECT_TRUE(has_event_of_kind(out, "token-budget"));
  EXPECT_EQ(server.received().size(), 1u);
  auto next = p.propose(context(), 1, 1);
  EXPECT_TRUE(has_event_of_kind(next, "token-budget"));
  EXPECT_EQ(server.received().size(), 1u) << "a spent run budget makes no further calls";

  ScriptedServer server2;
  server2.script({reply_with(completion("{\"ideas\": [\"a\"]}", "stop", 600, 100))});
  auto client2 = make_client(server2);
  LlmProposerConfig per_round;
  per_round.round_token_budget = 500;
  LlmProposer q(client2, per_round);
  auto r = q.propose(context(), 1, 1);
  EXPECT_TRUE(has_event_of_kind(r, "token-budget"));
  EXPECT_EQ(server2.received().size(), 1u);
}

TEST(PromptBudget, DropsLowerRankedCudaFirstThenOlderFailures) {
  ProposalContext c = context();
  c.best.clear();
  for (int i = 0; i < 3; ++i) {
    TriedCandidate t;
    t.idea = "idea " + std::to_string(i);
    t.schedule = nlohmann::json::array();
    t.median_ms = 1 + i;
    t.cuda_source = "// cuda of rank " + std::to_string(i) + "\n" + std::string(4000, 'x');
    c.best.push_back(t);
  }
  c.failures.clear();
  for (int i = 0; i < 3; ++i) {
    TriedCandidate f;
    f.idea = "failure " + std::to_string(i);
    f.schedule = nlohmann::json::array();
    f.verdict = "wrong_output";
    f.reason = "error text " + std::to_string(i) + " " + std::string(1600, 'e');
    c.failures.push_back(f);
  }
  auto all = build_prompt_context(c, 100000);
  EXPECT_TRUE(all.events.empty());
  for (const char* s : {"cuda of rank 0", "cuda of rank 2", "error text 2"})
    EXPECT_NE(all.context.find(s), std::string::npos);

  // Enough room for one CUDA source and everything else.
  int64_t full = estimate_tokens(all.system) + estimate_tokens(all.context) + 400;
  auto two_dropped = build_prompt_context(c, full - 1500);
  EXPECT_NE(two_dropped.context.find("cuda of rank 0"), std::string::npos);
  EXPECT_EQ(two_dropped.context.find("cuda of rank 1"), std::string::npos);
  EXPECT_EQ(two_dropped.context.find("cuda of rank 2"), std::string::npos);
  EXPECT_NE(two_dropped.context.find("error text 2"), std::string::npos)
      << "failures go only after all lower-ranked CUDA";
  ASSERT_FALSE(two_dropped.events.empty());
  EXPECT_EQ(two_dropped.events[0].kind, "prompt-trimmed");

  // Tighter: all CUDA gone, then the oldest failure (the last in the list).
  auto tight = build_prompt_context(c, full - 3000 - 600);
  EXPECT_EQ(tight.context.find("cuda of rank 0"), std::string::npos);
  EXPECT_NE(tight.context.find("error text 0"), std::string::npos);
  EXPECT_EQ(tight.context.find("error text 2"), std::string::npos);
  EXPECT_NE(tight.context.find("idea 2"), std::string::npos);
  EXPECT_LE(estimate_tokens(tight.system) + estimate_tokens(tight.context) + 400, full - 3600);
}
