#include "search/steering_round.h"

#include <algorithm>
#include <cctype>

namespace cusched::search {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

RoundSteering read_steering(const Store& store, int64_t run) {
  RoundSteering r;
  for (auto& a : steering_actions(store, run)) {
    switch (a.kind) {
      case SteeringKind::hint:
        r.hints.push_back(a.text);
        break;
      case SteeringKind::ban_move:
        r.banned_moves.insert(a.text);
        break;
      case SteeringKind::ban_idea:
        r.banned_ideas.push_back(a.text);
        break;
      case SteeringKind::restart_from:
        if (a.pending() && a.payload.is_object() && a.payload.contains("candidate"))
          r.restart_from = a.payload["candidate"].get<int64_t>();
        break;
      default:
        break;
    }
    if (a.pending()) r.pending.push_back(std::move(a));
  }
  return r;
}

bool is_banned(const RoundSteering& steering, const Proposal& p) {
  if (!p.move.empty() && steering.banned_moves.count(p.move)) return true;
  const std::string idea = lower(p.idea);
  for (const auto& b : steering.banned_ideas)
    if (!b.empty() && idea.find(lower(b)) != std::string::npos) return true;
  return false;
}

std::optional<TriedCandidate> tried_candidate(const Store& store, int64_t candidate) {
  auto c = store.candidate(candidate);
  if (!c) return std::nullopt;
  TriedCandidate t;
  t.idea = c->idea_text;
  t.schedule = c->schedule;
  t.candidate_id = c->id;
  if (auto e = store.evaluation(candidate)) {
    t.verdict = e->verdict;
    t.reason = e->reason;
    t.median_ms = e->median_ms.value_or(0);
    t.pct_of_floor = e->pct_of_floor.value_or(0);
    t.cost = e->cost_estimate.value_or(0);
  }
  if (auto a = store.artifacts(candidate)) {
    t.cuda_source = a->cuda_source;
    t.audit_findings = a->audit_findings;
  }
  return t;
}

}  // namespace cusched::search
