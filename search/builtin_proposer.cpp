#include "search/builtin_proposer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/expr_substitute.h"
#include "dsl/random_schedule.h"
#include "dsl/schedule.h"
#include "dsl/step_builder.h"
#include "problems/automatic_baseline.h"
#include "problems/baseline_steps.h"
#include "search/candidate_evaluation.h"
#include "search/cost_model.h"
#include "search/loop.h"
#include "search/schedule_moves.h"
#include "search/store.h"

namespace cusched::search {

using nlohmann::json;

namespace {

// Moves that suit each class, some listed twice to be drawn more often.
std::vector<std::string> class_moves(ProblemClass c) {
  switch (c) {
    case ProblemClass::pointwise:
      return {"retile", "retile", "vectorize", "vectorize", "unroll", "random"};
    case ProblemClass::reduction:
      return {"retile", "retile", "fuse_producers", "vectorize", "unroll", "register_tile", "random"};
    case ProblemClass::normalisation:
      return {"retile", "retile",       "fuse_producers", "vectorize", "vectorize",
              "unroll", "stage_shared", "fast_math",      "l2_keep",   "random"};
    case ProblemClass::matmul:
      return {"retile",       "retile",    "register_tile", "pipeline", "pipeline",
              "stage_shared", "precision", "unroll",        "raster"};
    case ProblemClass::convolution:
      return {"retile", "retile", "register_tile", "stage_shared", "unroll", "vectorize", "precision", "raster"};
  }
  return move_names();
}

// One move or random draw that fails yields no schedule; the round goes on with the others.
std::optional<MoveResult> move_or_nothing(const std::string& move, const json& steps, const ScheduleState& state,
                                          std::mt19937_64& rng) {
  try {
    return apply_move(move, steps, state, rng);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// The arithmetic a schedule asks for: its first tensor_core step's precision and shape,
// else its first precision step's operands, else "f32".
std::string arithmetic_kind(const json& steps) {
  for (const auto& st : steps)
    if (st.value("op", "") == "tensor_core") return st.value("precision", "f32") + " " + st.value("shape", "");
  for (const auto& st : steps)
    if (st.value("op", "") == "precision") return st.value("operands", "f32");
  return "f32";
}

json random_or_nothing(const ScheduleContext& ctx, std::mt19937_64& rng) {
  try {
    return random_schedule(ctx, rng);
  } catch (const UserError&) {
    return nullptr;
  }
}

}  // namespace

BuiltinProposer::BuiltinProposer(const Problem& problem, BuiltinProposerConfig config)
    : problem_(problem), config_(std::move(config)), class_(classify_pipeline(problem.pipeline)) {}

nlohmann::json BuiltinProposer::legal(const nlohmann::json& steps) const {
  json normalised;
  for (const auto& size : config_.sizes) {
    ValidationResult v = validate_schedule(problem_.context(size, config_.strict), steps);
    if (!v.ok) return nullptr;
    if (normalised.is_null()) normalised = v.steps;
  }
  return normalised;
}

double BuiltinProposer::estimate(const nlohmann::json& steps) const {
  try {
    Schedule s = Schedule::from_json(problem_.context(config_.cost_size, config_.strict), steps);
    LoweredProgram prog = lower(s, problem_.name);
    // A schedule whose blocks cannot get their shared memory ranks last.
    if (shared_memory_error(make_bundle(prog), config_.cost_size)) return std::numeric_limits<double>::infinity();
    return estimate_cost(prog).ms;
  } catch (const std::exception&) {
    return std::numeric_limits<double>::infinity();
  }
}

namespace {

struct Scored {
  MoveResult move;
  std::optional<int64_t> parent;
  double cost;
};

}  // namespace

RoundProposals BuiltinProposer::first_round(int ideas, int per_idea, std::mt19937_64& rng) {
  RoundProposals out;
  int slots = 0;  // idea slots taken: the baseline's, one per per_idea sketches, the random schedules'
  auto add_group = [&](const std::string& idea, std::vector<Scored> group) {
    if (group.empty() || slots >= ideas) return;
    ++slots;
    std::stable_sort(group.begin(), group.end(), [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
    out.ideas.push_back(idea);
    for (int i = 0; i < per_idea && i < static_cast<int>(group.size()); ++i)
      out.proposals.push_back({idea, group[i].move.schedule, std::nullopt});
  };
  auto admit = [&](const json& steps, std::vector<Scored>& group, const std::string& move, const std::string& text) {
    if (steps.is_null()) return;
    json n = legal(steps);
    if (n.is_null() || !proposed_.insert(schedule_hash(n)).second) return;
    group.push_back({{move, text, n}, std::nullopt, estimate(n)});
  };
  // The baseline and single moves applied to it.
  std::vector<Scored> base;
  json baseline = legal(baseline_schedule_of(problem_));
  if (!baseline.is_null()) {
    admit(baseline, base, "baseline", "the problem's baseline schedule");
    ScheduleState st = Schedule::from_json(problem_.context(config_.cost_size, config_.strict), baseline).state();
    auto moves = class_moves(class_);
    for (int tries = 0; tries < per_idea * config_.attempts_per_slot; ++tries)
      if (auto m = move_or_nothing(moves[tries % moves.size()], baseline, st, rng))
        admit(m->schedule, base, m->move, m->idea);
    // The baseline itself stays first; its mutants follow by estimated cost.
    if (!base.empty()) {
      Scored first = base[0];
      std::vector<Scored> rest(base.begin() + 1, base.end());
      std::stable_sort(rest.begin(), rest.end(), [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
      ++slots;
      out.ideas.push_back("start from the baseline schedule and single moves on it");
      out.proposals.push_back({out.ideas.back(), first.move.schedule, std::nullopt});
      for (int i = 0; i + 1 < per_idea && i < static_cast<int>(rest.size()); ++i)
        out.proposals.push_back({out.ideas.back(), rest[i].move.schedule, std::nullopt});
    }
  }
  // Class sketches: the legal ones that lower and fit a block's shared memory at the cost
  // size (estimate finite; one that does not would be rejected before the GPU), cheapest first.
  std::vector<Scored> sketches;
  for (const auto& s : class_sketches(problem_, class_)) admit(s.schedule, sketches, "sketch", s.idea);
  sketches.erase(
      std::remove_if(sketches.begin(), sketches.end(), [](const Scored& s) { return !std::isfinite(s.cost); }),
      sketches.end());
  std::stable_sort(sketches.begin(), sketches.end(), [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  // The cheapest sketch of each arithmetic (operand precision and tensor-core instruction)
  // goes first, then the rest by cost, so that a round of TF32 tiles also times f32 and
  // 3xTF32 ones (the kernels a 1e-4 tolerance admits) of each instruction.
  {
    std::set<std::string> seen;
    std::vector<Scored> firsts, rest;
    for (auto& sk : sketches)
      (seen.insert(arithmetic_kind(sk.move.schedule)).second ? firsts : rest).push_back(std::move(sk));
    firsts.insert(firsts.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
    sketches = std::move(firsts);
  }
  // Sketches take every idea slot but one for random schedules (all of them when there are
  // two or fewer), per_idea sketches a slot; each sketch is proposed under its own
  // description, so that the store and the tables name the tile each candidate is.
  const int sketch_slots = std::max(0, (ideas <= 2 ? ideas : ideas - 1) - slots);
  const size_t sketch_count = std::min(sketches.size(), static_cast<size_t>(sketch_slots * per_idea));
  slots += static_cast<int>((sketch_count + static_cast<size_t>(per_idea) - 1) / static_cast<size_t>(per_idea));
  for (size_t i = 0; i < sketch_count; ++i) {
    const std::string idea = problem_class_name(class_) + " sketch: " + sketches[i].move.idea;
    if (std::find(out.ideas.begin(), out.ideas.end(), idea) == out.ideas.end()) out.ideas.push_back(idea);
    out.proposals.push_back({idea, sketches[i].move.schedule, std::nullopt});
  }
  // Random legal schedules fill the remaining idea.
  std::vector<Scored> random;
  ScheduleContext ctx = problem_.context(config_.cost_size, config_.strict);
  for (int i = 0; i < std::max(per_idea, config_.random_samples) * config_.attempts_per_slot; ++i)
    admit(random_or_nothing(ctx, rng), random, "random", "a random legal schedule");
  add_group("random legal schedules, cheapest by the cost model", random);
  return out;
}

RoundProposals BuiltinProposer::propose(const ProposalContext& ctx, int ideas, int per_idea) {
  std::mt19937_64 rng(config_.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ctx.round));
  // What was proposed before comes from the run's store alone (not from this object's
  // history), so a resumed search proposes the same rounds as an uninterrupted one.
  proposed_ = ctx.tried_hashes;
  for (const auto& t : ctx.best) proposed_.insert(schedule_hash(t.schedule));
  for (const auto& t : ctx.failures) proposed_.insert(schedule_hash(t.schedule));
  if (ctx.best.empty()) return first_round(ideas, per_idea, rng);

  RoundProposals out;
  // Parents: the verified candidates legal at every size, best first.
  struct Parent {
    json steps;
    ScheduleState state;
    std::optional<int64_t> id;
  };
  std::vector<Parent> elite;
  for (const auto& t : ctx.best) {
    json n = legal(t.schedule);
    if (n.is_null()) continue;
    elite.push_back(
        {n, Schedule::from_json(problem_.context(config_.cost_size, config_.strict), n).state(), t.candidate_id});
  }
  if (elite.empty()) return first_round(ideas, per_idea, rng);
  auto tournament = [&]() -> const Parent& {
    std::uniform_int_distribution<size_t> u(0, elite.size() - 1);
    return elite[std::min(u(rng), u(rng))];
  };
  std::vector<std::string> moves = class_moves(class_);
  std::erase_if(moves, [&](const std::string& m) { return ctx.banned_moves.count(m) > 0; });
  if (moves.empty()) {
    out.events.push_back({"exhausted", "Every move of the problem's class is banned."});
    return out;
  }
  std::shuffle(moves.begin(), moves.end(), rng);
  std::set<std::string> used_moves;
  size_t next_move = 0;
  for (int k = 0; k < ideas; ++k) {
    std::vector<Scored> group;
    // Try moves in shuffled order (each at most once per round) until one yields mutants.
    for (size_t tried = 0; group.empty() && tried < moves.size(); ++tried) {
      std::string move = moves[next_move++ % moves.size()];
      if (used_moves.count(move)) continue;
      used_moves.insert(move);
      const Parent* parent = &elite[0];
      if (k > 0) parent = &tournament();
      for (int a = 0; a < per_idea * config_.attempts_per_slot; ++a) {
        const Parent& p = a % 2 == 0 ? *parent : tournament();
        auto m = move_or_nothing(move, p.steps, p.state, rng);
        if (!m) continue;
        json n = legal(m->schedule);
        if (n.is_null() || !proposed_.insert(schedule_hash(n)).second) continue;
        m->schedule = n;
        group.push_back({*m, p.id, estimate(n)});
      }
    }
    if (used_moves.size() >= moves.size()) used_moves.clear();
    if (group.empty()) continue;
    std::stable_sort(group.begin(), group.end(), [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
    std::string idea = group[0].move.idea;
    out.ideas.push_back(idea);
    for (int i = 0; i < per_idea && i < static_cast<int>(group.size()); ++i)
      out.proposals.push_back({idea, group[i].move.schedule, group[i].parent, group[i].move.move});
  }
  if (out.proposals.empty())
    out.events.push_back({"exhausted", "No move produced a new legal schedule from the best candidates."});
  return out;
}

}  // namespace cusched::search
