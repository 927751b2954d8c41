#include "search/llm_proposer.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "search/cost_model.h"
#include "search/llm_schema.h"

namespace cusched::search {

namespace {

// The machine's description takes its multiprocessor count from the cost model's.
const std::string kSystemPrompt =
    "You are an expert CUDA performance engineer tuning kernels for an NVIDIA H200 (Hopper, sm_90a, " +
    std::to_string(kMultiprocessors) +
    " SMs, "
    "228 KB shared memory per SM, 4.8 TB/s HBM3e). You do not write CUDA yourself: you write schedules. A schedule "
    "is a JSON array of steps; each step is an object whose \"op\" names a primitive from the reference below, "
    "with that primitive's arguments; it names the problem's stages and loops exactly as the problem section "
    "lists them. A code generator lowers the algorithm plus the schedule to CUDA. Every candidate is compiled, "
    "audited and checked against a float64 reference on fresh random inputs; only verified candidates count, and "
    "faster is better. The problem section says how this run times or estimates candidates, and in which units.";

// How a run without a problem brief judges candidates.
const char* kGenericJudging =
    "Candidates are timed on the GPU (median milliseconds, L2 cache flushed before each launch) when one is "
    "present; without a GPU they are verified in a CPU interpreter and ranked by a cost model's estimate in "
    "milliseconds. The floor is the problem's bytes over the copy bandwidth (or FLOPs over the unit's peak): 100% "
    "of floor is the best possible time.";

std::string describe_findings(const nlohmann::json& findings) {
  if (findings.is_null() || (findings.is_array() && findings.empty())) return "none";
  return findings.dump();
}

std::string render_tried(const TriedCandidate& t, bool with_cuda, bool failed, bool gpu_timing) {
  std::ostringstream s;
  if (t.candidate_id) s << " (candidate id " << *t.candidate_id << ")";
  s << "\n";
  if (!t.idea.empty()) s << "Idea: " << t.idea << "\n";
  if (failed) {
    s << "Verdict: " << t.verdict << "\n";
    if (!t.reason.empty()) s << "Error: " << t.reason << "\n";
  } else {
    if (t.median_ms > 0)
      s << "Median time: " << t.median_ms << " ms on the GPU (L2 flushed), " << t.pct_of_floor << "% of floor\n";
    if (t.cost > 0)
      s << "Cost-model estimate: " << t.cost << " ms" << (gpu_timing ? "" : " (an estimate, not a measurement)")
        << "\n";
  }
  s << "Schedule:\n```json\n" << t.schedule.dump() << "\n```\n";
  if (!failed || !t.audit_findings.is_null()) s << "Audit findings: " << describe_findings(t.audit_findings) << "\n";
  if (with_cuda && !t.cuda_source.empty()) s << "Generated CUDA:\n```cuda\n" << t.cuda_source << "\n```\n";
  return s.str();
}

std::string render_context(const ProposalContext& ctx, const std::vector<bool>& keep_cuda, size_t n_best,
                           size_t n_failures, const std::string& brief, bool gpu_timing) {
  std::ostringstream s;
  if (!brief.empty())
    s << brief << "\n";
  else
    s << "# Problem: " << ctx.problem_name << "\n" << ctx.problem_description << "\n\n" << kGenericJudging << "\n\n";
  s << "# Schedule primitives\n" << ctx.primitive_reference << "\n\n";
  if (n_best > 0) {
    s << "# Best verified candidates so far (fastest first)\n";
    for (size_t i = 0; i < n_best; ++i)
      s << "## Rank " << i + 1 << render_tried(ctx.best[i], keep_cuda[i], false, gpu_timing) << "\n";
  } else {
    s << "# Best verified candidates so far\nNone yet.\n\n";
  }
  if (n_failures > 0) {
    s << "# Recent failed attempts (most recent first): do not repeat these mistakes\n";
    for (size_t i = 0; i < n_failures; ++i)
      s << "## Failure " << i + 1 << render_tried(ctx.failures[i], false, true, gpu_timing) << "\n";
  }
  if (!ctx.hints.empty() || !ctx.banned_ideas.empty()) {
    s << "# Guidance from the engineer running this search (follow it)\n";
    for (const auto& h : ctx.hints) s << "- Hint: " << h << "\n";
    for (const auto& b : ctx.banned_ideas) s << "- Do not propose ideas like: " << b << "\n";
    s << "\n";
  }
  return s.str();
}

// Ideas from a numbered list in plain text ("1. ...", "2) ...").
std::vector<std::string> numbered_lines(const std::string& text) {
  static const std::regex item(R"(^\s*(?:\*\*)?\d+[.)](?:\*\*)?\s+(.+?)\s*$)");
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  // std::regex recurses per character: lines longer than an idea can be are skipped.
  constexpr size_t kMaxIdeaLine = 2000;
  while (std::getline(in, line))
    if (line.size() <= kMaxIdeaLine && std::regex_match(line, m, item)) out.push_back(m[1]);
  return out;
}

}  // namespace

int64_t estimate_tokens(const std::string& text) { return static_cast<int64_t>((text.size() + 3) / 4); }

LlmPrompts build_prompt_context(const ProposalContext& ctx, int64_t token_budget, const std::string& brief,
                                bool gpu_timing) {
  LlmPrompts p;
  p.system = kSystemPrompt;
  std::vector<bool> keep_cuda(ctx.best.size(), true);
  size_t n_best = ctx.best.size(), n_failures = ctx.failures.size();
  // Room left for the task text appended after the context.
  const int64_t budget = token_budget - estimate_tokens(p.system) - 400;
  auto render = [&] { return render_context(ctx, keep_cuda, n_best, n_failures, brief, gpu_timing); };
  auto fits = [&] { return estimate_tokens(render()) <= budget; };
  int dropped_cuda = 0, dropped_failures = 0, dropped_best = 0;
  for (size_t i = keep_cuda.size(); i-- > 0 && !fits();) {
    if (!ctx.best[i].cuda_source.empty()) ++dropped_cuda;
    keep_cuda[i] = false;
  }
  while (n_failures > 0 && !fits()) --n_failures, ++dropped_failures;
  while (n_best > 1 && !fits()) --n_best, ++dropped_best;
  p.context = render();
  if (dropped_cuda || dropped_failures || dropped_best)
    p.events.push_back({"prompt-trimmed",
                        "To fit " + std::to_string(token_budget) + " tokens the prompt left out the CUDA of " +
                            std::to_string(dropped_cuda) + " candidate(s), " + std::to_string(dropped_failures) +
                            " older failure(s) and " + std::to_string(dropped_best) + " lower-ranked candidate(s)."});
  if (!fits())
    p.events.push_back({"prompt-over-budget", "The prompt is about " + std::to_string(estimate_tokens(p.context)) +
                                                  " tokens even after trimming, over the budget of " +
                                                  std::to_string(token_budget) + "."});
  return p;
}

LlmProposer::LlmProposer(LlmClient& client, LlmProposerConfig config) : client_(client), config_(config) {}

RoundProposals LlmProposer::propose(const ProposalContext& ctx, int n_ideas, int per_idea) {
  RoundProposals out;
  bool round_replied = false;
  std::string last_error;
  auto absorb = [&](const ChatReply& r, const std::string& purpose) {
    out.prompt_tokens += r.prompt_tokens;
    out.completion_tokens += r.completion_tokens;
    tokens_used_ += r.prompt_tokens + r.completion_tokens;
    for (const auto& c : r.calls) {
      if (c.error.empty())
        ++completions_;
      else
        last_error = c.error;
    }
    if (std::any_of(r.calls.begin(), r.calls.end(), [](const ModelCall& c) { return c.error.empty(); }))
      round_replied = true;
    for (const auto& e : r.events) out.events.push_back({e.kind, purpose + " call: " + e.detail});
    out.calls.insert(out.calls.end(), r.calls.begin(), r.calls.end());
  };
  auto budget_spent = [&] {
    if (config_.run_token_budget > 0 && tokens_used_ >= config_.run_token_budget) {
      out.events.push_back({"token-budget", "The run's token budget of " + std::to_string(config_.run_token_budget) +
                                                " is spent (" + std::to_string(tokens_used_) +
                                                " used); the LLM proposes no more."});
      return true;
    }
    int64_t round = out.prompt_tokens + out.completion_tokens;
    if (config_.round_token_budget > 0 && round >= config_.round_token_budget) {
      out.events.push_back({"token-budget", "This round's token budget of " +
                                                std::to_string(config_.round_token_budget) + " is spent (" +
                                                std::to_string(round) + " used); the round stops proposing."});
      return true;
    }
    return false;
  };
  if (unavailable_) {
    out.events.push_back({"llm-unavailable", "An earlier round got no reply from the model (" + unavailable_reason_ +
                                                 "); the LLM proposes no more in this run."});
    return out;
  }
  if (n_ideas <= 0 || per_idea <= 0 || budget_spent()) return out;
  // A round in which no call got a reply ends the model's part of the run.
  auto give_up_if_silent = [&] {
    if (round_replied || out.calls.empty()) return;
    unavailable_ = true;
    unavailable_reason_ = last_error.empty() ? "no call got a chat completion back" : last_error.substr(0, 600);
    out.events.push_back({"llm-unavailable", "No call of round " + std::to_string(ctx.round) +
                                                 " got a reply from the model: " + unavailable_reason_});
  };

  LlmPrompts prompts =
      build_prompt_context(ctx, config_.prompt_token_budget, config_.problem_brief, config_.gpu_timing);
  out.events.insert(out.events.end(), prompts.events.begin(), prompts.events.end());

  // First request: ideas.
  ChatRequest ask;
  ask.purpose = "ideas";
  ask.schema_name = "ideas";
  ask.json_schema = ideas_reply_schema();
  ask.max_completion_tokens = config_.max_completion_tokens;
  ask.messages = {
      {"system", prompts.system},
      {"user", prompts.context + "\n# Task\nThis is round " + std::to_string(ctx.round) + ". Propose " +
                   std::to_string(n_ideas) +
                   " distinct ideas, in plain language, for schedules likely to be faster than the best so far "
                   "(or, if none is verified yet, to get a first correct and fast kernel). Base them on the "
                   "measurements and errors above; say which primitives each idea uses. Reply as {\"ideas\": "
                   "[\"...\", ...]} with exactly " +
                   std::to_string(n_ideas) + " entries."}};
  ChatReply ideas_reply = client_.chat(ask);
  absorb(ideas_reply, "ideas");
  if (ideas_reply.json && ideas_reply.json->is_object() && ideas_reply.json->contains("ideas") &&
      (*ideas_reply.json)["ideas"].is_array()) {
    for (const auto& i : (*ideas_reply.json)["ideas"])
      if (i.is_string() && !i.get<std::string>().empty()) out.ideas.push_back(i);
  } else if (ideas_reply.ok) {
    out.ideas = numbered_lines(ideas_reply.content);
  }
  if (static_cast<int>(out.ideas.size()) > n_ideas) out.ideas.resize(n_ideas);
  if (out.ideas.empty()) {
    if (ideas_reply.ok) out.events.push_back({"bad-proposal", "ideas call: the reply held no ideas."});
    give_up_if_silent();
    return out;
  }
  if (budget_spent()) return out;

  // Second request: schedules for each idea.
  std::ostringstream list;
  for (size_t i = 0; i < out.ideas.size(); ++i) list << i + 1 << ". " << out.ideas[i] << "\n";
  ChatRequest impl;
  impl.purpose = "implementations";
  impl.schema_name = "proposals";
  impl.json_schema = proposals_reply_schema(ctx.schedule_schema);
  impl.max_completion_tokens = config_.max_completion_tokens;
  impl.messages = {
      {"system", prompts.system},
      {"user", prompts.context + "\n# Ideas for this round\n" + list.str() + "\n# Task\nFor each idea write " +
                   std::to_string(per_idea) +
                   " different complete schedule(s) (JSON arrays of steps, using only the primitives above). "
                   "Reply as {\"proposals\": [{\"idea_index\": <number of the idea in the list, 1 to " +
                   std::to_string(out.ideas.size()) +
                   ">, \"based_on\": <candidate id the schedule modifies, or null>, \"schedule\": [...]}]}. "
                   "In each step, give null for an optional argument you leave out."}};
  ChatReply impl_reply = client_.chat(impl);
  absorb(impl_reply, "implementations");
  if (!impl_reply.json) return out;
  const auto& j = *impl_reply.json;
  if (!j.is_object() || !j.contains("proposals") || !j["proposals"].is_array()) {
    out.events.push_back(
        {"bad-proposal", "implementations call: the reply has no \"proposals\" array: " + j.dump().substr(0, 200)});
    return out;
  }
  std::set<int64_t> known_ids;
  for (const auto* list_of : {&ctx.best, &ctx.failures})
    for (const auto& t : *list_of)
      if (t.candidate_id) known_ids.insert(*t.candidate_id);
  std::vector<int> per_idea_count(out.ideas.size(), 0);
  for (size_t k = 0; k < j["proposals"].size(); ++k) {
    const auto& p = j["proposals"][k];
    std::string where = "implementations call: proposal " + std::to_string(k + 1);
    if (!p.is_object() || !p.contains("idea_index") || !p["idea_index"].is_number_integer() ||
        !p.contains("schedule")) {
      out.events.push_back({"bad-proposal", where + " lacks an integer idea_index or a schedule."});
      continue;
    }
    int64_t index = p["idea_index"];
    if (index < 1 || index > static_cast<int64_t>(out.ideas.size())) {
      out.events.push_back(
          {"bad-proposal", where + " names idea " + std::to_string(index) + ", which is not in the list."});
      continue;
    }
    if (!p["schedule"].is_array()) {
      out.events.push_back({"bad-proposal", where + ": the schedule is not a JSON array of steps."});
      continue;
    }
    if (per_idea_count[index - 1] >= per_idea) {
      out.events.push_back({"bad-proposal", where + " is one more than the " + std::to_string(per_idea) +
                                                " asked for idea " + std::to_string(index) + "; dropped."});
      continue;
    }
    ++per_idea_count[index - 1];
    Proposal prop;
    prop.idea = out.ideas[index - 1];
    prop.schedule = nlohmann::json::array();
    for (const auto& step : p["schedule"]) prop.schedule.push_back(drop_null_arguments(step));
    if (p.contains("based_on") && p["based_on"].is_number_integer() && known_ids.count(p["based_on"].get<int64_t>()))
      prop.parent = p["based_on"].get<int64_t>();
    out.proposals.push_back(std::move(prop));
  }
  return out;
}

}  // namespace cusched::search
