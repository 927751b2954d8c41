#pragma once
// A proposer that asks a language model, in two calls per round: first for K
// plain-language ideas conditioned on what was tried and measured, then for M
// schedules per idea as JSON. Everything that goes wrong becomes an event.
#include <cstdint>
#include <string>

#include "search/llm_client.h"
#include "search/proposer.h"

namespace cusched::search {

struct LlmProposerConfig {
  int64_t prompt_token_budget = 30000;  // estimated (chars / 4) size of one prompt
  int max_completion_tokens = 8192;     // per call
  int64_t round_token_budget = 0;       // prompt + completion tokens per round; 0: unlimited
  int64_t run_token_budget = 0;         // across every round of this proposer; 0: unlimited
};

// Estimated tokens of a text: characters / 4, rounded up.
int64_t estimate_tokens(const std::string& text);

// The prompts, exposed so that tests and `--dry-run` style tools can show them.
struct LlmPrompts {
  std::string system;
  std::string context;                // problem, primitives, best candidates, failures (within the budget)
  std::vector<ProposerEvent> events;  // what had to be dropped to fit
};
LlmPrompts build_prompt_context(const ProposalContext& ctx, int64_t token_budget);

class LlmProposer : public Proposer {
 public:
  LlmProposer(LlmClient& client, LlmProposerConfig config = {});
  std::string name() const override { return "llm"; }
  RoundProposals propose(const ProposalContext& ctx, int ideas, int per_idea) override;

  // Tokens counted so far (for the run budget); a resumed search sets the tokens already spent.
  int64_t tokens_used() const { return tokens_used_; }
  void set_tokens_used(int64_t t) { tokens_used_ = t; }

 private:
  LlmClient& client_;
  LlmProposerConfig config_;
  int64_t tokens_used_ = 0;
};

}  // namespace cusched::search
