#pragma once
// The interface between the round loop and whatever proposes schedules: the
// built-in proposer, an LLM, or files written by a person or a script.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched::search {

// One candidate that was already evaluated, as a proposer sees it.
struct TriedCandidate {
  std::string idea;
  nlohmann::json schedule;
  std::string verdict, reason;
  double median_ms = 0;
  double pct_of_floor = 0;
  double cost = 0;  // cost-model estimate (interpreter runs rank by it)
  std::string cuda_source;
  nlohmann::json audit_findings;
  std::optional<int64_t> candidate_id;  // the store's id, so a proposal can name it as its parent
};

struct ProposalContext {
  std::string problem_name, problem_description;  // algorithm in words + shapes + tolerance
  std::string primitive_reference;                // markdown, generated from the registry
  nlohmann::json schedule_schema;                 // JSON Schema of one schedule (a JSON array of steps)
  std::vector<TriedCandidate> best;               // best verified so far, best first (with CUDA)
  std::vector<TriedCandidate> failures;           // recent failed attempts with their errors, most recent first
  int round = 0;
  uint64_t seed = 0;
  // Hashes of every schedule of the run so far (schedule_hash of the stored steps): a
  // proposer skips them, and depends on nothing else from earlier rounds, so a resumed
  // search proposes what an uninterrupted one would.
  std::set<std::string> tried_hashes;
  // Steering (search/steering.h): hints from the engineer, in the order given; moves of
  // the built-in proposer not to use; idea texts whose proposals the loop drops.
  std::vector<std::string> hints;
  std::set<std::string> banned_moves;
  std::vector<std::string> banned_ideas;
};

struct Proposal {
  std::string idea;  // the text of the idea this schedule implements
  nlohmann::json schedule;
  std::optional<int64_t> parent;  // candidate id this schedule was derived from
  std::string move;               // the built-in proposer's move that made it, empty otherwise
};

// Something that happened while proposing and that the loop should record:
// "refusal", "truncated", "malformed-json", "timeout", "http-429", "http-5xx",
// "structured-output-unsupported", "token-budget", "bad-proposal", "bad-line",
// "exhausted", "transport-error", "http-error", "prompt-trimmed", "prompt-over-budget".
struct ProposerEvent {
  std::string kind;
  std::string detail;
};

// One request to a model, as the store's llm_calls table keeps it. Never holds
// an API key.
struct ModelCall {
  std::string purpose;  // "ideas" or "implementations"
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::string finish_reason;
  std::string error;      // empty when the call produced a reply
  std::string raw_reply;  // the reply body as received
  std::string prompt;     // the request's messages as a JSON array of {role, content}
};

struct RoundProposals {
  std::vector<std::string> ideas;
  std::vector<Proposal> proposals;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::vector<ProposerEvent> events;
  std::vector<ModelCall> calls;  // empty for proposers that do not call a model
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;  // "builtin", "llm", "file": also the ideas' source in the store
  virtual RoundProposals propose(const ProposalContext&, int ideas, int per_idea) = 0;
};

}  // namespace cusched::search
