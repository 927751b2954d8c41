#pragma once
// A proposer that asks a language model, in two calls per round: first for K
// plain-language ideas conditioned on what was tried and measured, then for M
// schedules per idea as JSON (strict structured output). Everything that goes wrong
// becomes an event; a round in which no call got a reply makes the model unavailable
// for the rest of the run, which the caller reports as a failure.
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
  // The "# Problem" section (search/prompt_problem.h: algorithm, stages, loops, sizes, how
  // candidates are judged); empty: the round's problem_description.
  std::string problem_brief;
  bool gpu_timing = true;  // candidates are timed on a GPU (else ranked by the cost model)
};

// Estimated tokens of a text: characters / 4, rounded up.
int64_t estimate_tokens(const std::string& text);

// The prompts, exposed so that tests and `--dry-run` style tools can show them.
struct LlmPrompts {
  std::string system;
  std::string context;                // problem, primitives, best candidates, failures (within the budget)
  std::vector<ProposerEvent> events;  // what had to be dropped to fit
};
LlmPrompts build_prompt_context(const ProposalContext& ctx, int64_t token_budget, const std::string& problem_brief = "",
                                bool gpu_timing = true);

class LlmProposer : public Proposer {
 public:
  LlmProposer(LlmClient& client, LlmProposerConfig config = {});
  std::string name() const override { return "llm"; }
  RoundProposals propose(const ProposalContext& ctx, int ideas, int per_idea) override;

  // Tokens counted so far (for the run budget); a resumed search sets the tokens already spent.
  int64_t tokens_used() const { return tokens_used_; }
  void set_tokens_used(int64_t t) { tokens_used_ = t; }

  // Calls that got a chat completion back, and whether a whole round got none (then the
  // proposer stops calling; `unavailable_reason` says what the last call met).
  int64_t completions() const { return completions_; }
  bool unavailable() const { return unavailable_; }
  const std::string& unavailable_reason() const { return unavailable_reason_; }

 private:
  LlmClient& client_;
  LlmProposerConfig config_;
  int64_t tokens_used_ = 0;
  int64_t completions_ = 0;
  bool unavailable_ = false;
  std::string unavailable_reason_;
};

}  // namespace cusched::search
