#include "search/loop.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "runtime/worker.h"
#include "search/candidate_evaluation.h"
#include "search/class_sketches.h"
#include "search/cost_model.h"
#include "search/floor_share.h"
#include "search/host_evaluator.h"
#include "search/monotonic_seconds.h"
#include "search/run_outcome_store.h"
#include "search/stall_diagnosis.h"
#include "search/steered_kernel.h"

namespace cusched::search {
std::string default_db_path(const std::string& problem) { return "cusched-" + problem + ".db"; }

SearchLoop::SearchLoop(const Problem& problem, Store& store, Proposer& proposer, SearchOptions options,
                       std::ostream& log, std::shared_ptr<Evaluator> evaluator)
    : problem_(problem),
      store_(store),
      proposer_(proposer),
      options_(std::move(options)),
      log_(log),
      started_(monotonic_seconds()),
      evaluator_(std::move(evaluator)) {
  if (!evaluator_) evaluator_ = host_evaluator(options_);
  if (!options_.replay_timings.empty())
    evaluator_->set_replay(std::make_shared<TimingReplay>(TimingReplay::load(options_.replay_timings)));
}

SearchSummary SearchLoop::run() {
  RunInfo info;
  info.problem = problem_.name;
  info.problem_definition = problem_to_json(problem_);
  info.size = options_.resolved_size();
  info.backend = options_.backend;
  info.seed = options_.seed;
  info.config = {{"proposer", proposer_.name()},
                 {"rounds", options_.rounds},
                 {"ideas", options_.ideas},
                 {"per_idea", options_.per_idea},
                 {"budget_candidates", options_.budget_candidates},
                 {"budget_minutes", options_.budget_minutes},
                 {"budget_tokens", options_.budget_tokens},
                 {"audit", options_.audit},
                 {"strict", options_.strict},
                 {"torch_op", problem_.torch_semantics},
                 {"stall_rounds", options_.stall.rounds},
                 {"stall_threshold", options_.stall.min_gain},
                 {"on_stall", options_.continue_on_stall ? "continue" : "stop"}};
  if (!options_.replay_timings.empty()) info.config["replay_timings"] = options_.replay_timings;
  int64_t run = store_.create_run(info);
  return search(run, true);
}

SearchSummary SearchLoop::resume(int64_t run_id) { return search(run_id, false); }

SearchSummary SearchLoop::search(int64_t run, bool fresh) {
  const bool interp = options_.backend == "interp";
  log_ << (fresh ? "search" : "resume") << " run " << run << ": " << problem_.name << ", proposer " << proposer_.name()
       << ", " << options_.rounds << " rounds x " << options_.ideas << " ideas x " << options_.per_idea << " per idea, "
       << (interp ? "interpreter at the " + options_.resolved_size() +
                        " size, ranked by the cost model (no GPU time is measured)"
                  : "timed on " + std::to_string(evaluator_->total()) + " GPU(s) at the " + options_.resolved_size() +
                        " size")
       << ", store " << store_.path() << std::endl;
  store_.set_run_status(run, status_name(SearchStatus::running));
  if (options_.goal) save_goal(store_, run, *options_.goal);
  std::optional<Goal> goal = options_.goal;
  if (!goal)
    if (auto g = find_goal(store_, run)) goal = g->goal;
  if (goal) log_ << "goal: " << goal->describe() << (interp ? " (on cost model estimates)" : "") << std::endl;
  bool ok = true, goal_met = false, stalled = false;
  auto goal_reached = [&](int index) {
    if (!goal || goal_met) return goal_met;
    goal_met = check_goal(run, index, *goal).met;
    return goal_met;
  };
  if (!fresh) {
    auto pending = store_.pending(run);
    if (!pending.empty()) {
      log_ << "resume: " << pending.size() << " candidate(s) proposed but not evaluated; evaluating them first"
           << std::endl;
      ok = evaluate(run, pending);
    }
    for (const auto& r : store_.round_summaries(run)) {
      if (!ok || goal_reached(r.round.index)) break;
      if (!r.round.finished.empty()) continue;
      if (r.candidates == 0) {
        ok = do_round(run, r.round.index);
      } else {
        store_.finish_round(r.round.id, r.round.prompt_tokens, r.round.completion_tokens);
        progress(run, r.round.id, r.round.index);
      }
    }
  }
  int rounds = options_.rounds;
  const int first = store_.next_round_index(run);
  if (!fresh && first >= rounds && !read_steering(store_, run).empty()) {
    rounds = first + 1;
    log_ << "resume: every round has run; one more round applies the pending steering" << std::endl;
  }
  // A stall needs options_.stall.rounds rounds of this invocation (or since the last stall).
  int since = first;
  for (int index = first; ok && !goal_met && index < rounds; ++index) {
    if (!budget_left(run)) {
      ok = false;
      break;
    }
    ok = do_round(run, index);
    if (goal_reached(index)) break;
    if (options_.stall.rounds <= 0) continue;
    StallFinding f = detect_stall(store_.round_summaries(run), options_.stall, since);
    if (!f.stalled) continue;
    nlohmann::json d = diagnose_stall(store_, problem_, run, f, options_.stall.rounds);
    add_stall(store_, run, index, d);
    log_ << diagnosis_text(d) << std::endl;
    since = index + 1;
    if (!options_.continue_on_stall) {
      stalled = true;
      break;
    }
    log_ << "--on-stall continue: going on" << std::endl;
  }
  SearchStatus status = goal_met      ? SearchStatus::goal_met
                        : stalled     ? SearchStatus::stalled
                        : !ok || goal ? SearchStatus::budget_spent
                                      : SearchStatus::finished;
  if (status != SearchStatus::stalled && store_.leaderboard(run, 1).empty()) status = SearchStatus::failed;
  store_.set_run_status(run, status_name(status));
  SearchSummary s = summarise(run, status);
  if (goal) s.goal = goal_standing_now(run, *goal);
  auto stall_records = stalls_of_run(store_, run);
  if (stalled && !stall_records.empty()) s.stall = stall_records.back().diagnosis;
  std::ostringstream line;
  line << "done: run " << run << " " << status_name(status) << ", " << s.evaluated << " evaluated, " << s.verified
       << " verified";
  if (s.best && s.best_candidate) {
    line << ", best candidate " << *s.best_candidate << " at " << *s.best << " ms";
    line << (interp ? " (interp, cost model estimate)" : " (GPU median)");
  }
  if (goal) line << "; goal " << goal->text << (goal_met ? " met" : " not met");
  log_ << line.str() << std::endl;
  if (!interp && options_.sanitize_best && s.best_candidate) sanitize_best(*s.best_candidate);
  return s;
}

void SearchLoop::sanitize_best(int64_t candidate) {
  auto c = store_.candidate(candidate);
  auto e = store_.evaluation(candidate);
  if (!c || !e) return;
  nlohmann::json report;
  try {
    report = sanitize_schedule(problem_, c->schedule, options_.strict, options_.sanitize_seconds);
  } catch (const UserError& err) {
    // Not run: no sanitizer verdict, the reason kept.
    report = {{"clean", false}, {"run", false}, {"problem", err.error().to_string()}};
  }
  e->result["sanitizer"] = report;
  store_.save_evaluation(*e);
  log_ << "compute-sanitizer on the best candidate " << candidate
       << " (small size): " << (report.value("clean", false) ? "clean" : "findings or not run: " + report.dump())
       << std::endl;
}

bool SearchLoop::do_round(int64_t run, int index) {
  int64_t round = store_.begin_round(run, index);
  ProposalContext ctx;
  ctx.problem_name = problem_.name;
  std::ostringstream desc;
  desc << problem_.title << ". PyTorch: " << problem_.torch_semantics << ". " << problem_.notes << " Shapes (bench):";
  for (const auto& [k, v] : problem_.size("bench")) desc << " " << k << "=" << v;
  desc << ". Tolerance: atol " << problem_.atol << ", rtol " << problem_.rtol << ".";
  ctx.problem_description = desc.str();
  ctx.primitive_reference = primitive_reference_markdown();
  ctx.schedule_schema = schedule_json_schema();
  ctx.best = store_.best_tried(run, options_.context_best);
  // Hand-written kernels have no schedule a proposer could grow from.
  std::erase_if(ctx.best, [&](const TriedCandidate& t) {
    auto c = t.candidate_id ? store_.candidate(*t.candidate_id) : std::nullopt;
    return c && is_handwritten(*c);
  });
  ctx.failures = store_.failed_tried(run, options_.context_failures);
  ctx.round = index;
  ctx.seed = options_.seed;
  for (const auto& c : store_.candidates(run)) ctx.tried_hashes.insert(c.schedule_hash);
  RoundSteering steering = read_steering(store_, run);
  ctx.hints = steering.hints;
  ctx.banned_moves = steering.banned_moves;
  ctx.banned_ideas = steering.banned_ideas;
  if (steering.restart_from)
    if (auto t = tried_candidate(store_, *steering.restart_from)) {
      std::erase_if(ctx.best, [&](const TriedCandidate& b) { return b.candidate_id == t->candidate_id; });
      ctx.best.insert(ctx.best.begin(), *t);
      log_ << "round " << index + 1 << ": growing from candidate " << *steering.restart_from << " (steering)"
           << std::endl;
    }
  // A proposer that fails ends its own round's proposals, not the search: the round goes on
  // with the baseline and steering, and the failure is logged with the round.
  RoundProposals props;
  try {
    props = proposer_.propose(ctx, options_.ideas, options_.per_idea);
  } catch (const UserError& e) {
    props.events.push_back({"proposer_failed", e.error().to_string()});
  } catch (const std::exception& e) {
    props.events.push_back({"proposer_failed", e.what()});
  }
  for (const auto& call : props.calls) store_.add_llm_call(round, call);
  for (const auto& e : props.events) log_ << "round " << index << ": " << e.kind << ": " << e.detail << std::endl;

  std::vector<Proposal> proposals;
  std::string source = proposer_.name();
  const bool with_baseline = index == 0 && store_.candidates(run).empty();
  if (with_baseline)
    proposals.push_back({"the problem's baseline schedule", baseline_schedule_of(problem_), std::nullopt});
  // Schedules added by steering come next, under their own idea, then the proposer's
  // own proposals less the banned ones.
  const size_t steered_begin = proposals.size();
  std::vector<int64_t> action_of;  // per steered proposal: the steering action
  for (const auto& a : steering.pending)
    if (a.kind == SteeringKind::add_schedule) {
      proposals.push_back({a.text.empty() ? "(added by " + a.author + ")" : a.text, a.payload, std::nullopt, ""});
      action_of.push_back(a.id);
    }
  const size_t steered_end = proposals.size();
  int banned = 0;
  for (const auto& p : props.proposals) {
    if (is_banned(steering, p)) {
      ++banned;
      continue;
    }
    proposals.push_back(p);
  }
  std::map<int64_t, std::string> outcome;  // steering action -> what applying it did
  std::map<std::string, int64_t> idea_ids;
  std::vector<CandidateRecord> fresh_candidates;
  ScheduleContext sctx = problem_.context(options_.resolved_size(), options_.strict);
  int duplicates = 0;
  std::string baseline_hash;
  for (size_t i = 0; i < proposals.size(); ++i) {
    const Proposal& p = proposals[i];
    // Store the normalised steps when legal, so one schedule has one hash.
    ValidationResult v = validate_schedule(sctx, p.schedule);
    nlohmann::json steps = v.ok ? v.steps : p.schedule;
    std::optional<int64_t> parent = p.parent;
    if (parent && !store_.candidate(*parent)) parent.reset();
    std::string hash = schedule_hash(steps);
    const bool steered = i >= steered_begin && i < steered_end;
    if (i == 0 && with_baseline)
      baseline_hash = hash;
    else if (hash == baseline_hash && !steered)
      continue;  // the proposer's own copy of the baseline
    std::string text = p.idea.empty() ? "(no idea given)" : p.idea;
    auto it = idea_ids.find(text);
    // Steered schedules come from a file a person gave: their ideas have the source "file".
    const std::string idea_source = i == 0 && with_baseline ? "builtin" : steered ? "file" : source;
    if (it == idea_ids.end()) it = idea_ids.emplace(text, store_.add_idea(round, text, idea_source)).first;
    AddedCandidate added = store_.add_candidate({run, round, it->second, parent, steps, hash});
    if (steered)
      outcome[action_of[i - steered_begin]] =
          (added.is_new ? "candidate " : "already tried as candidate ") + std::to_string(added.id);
    if (!added.is_new) {
      ++duplicates;
      continue;
    }
    if (auto rec = store_.candidate(added.id)) fresh_candidates.push_back(*rec);
  }
  // Ideas none of whose schedules became a candidate are kept too, for the report.
  for (const auto& idea : props.ideas)
    if (!idea_ids.count(idea)) idea_ids.emplace(idea, store_.add_idea(round, idea, source));
  int steered_kernels = 0;
  for (const auto& a : steering.pending) {
    if (a.kind != SteeringKind::add_kernel) continue;
    try {
      int64_t idea = store_.add_idea(round, a.text, "file");
      AddedCandidate added = add_kernel_candidate(store_, problem_, run, round, idea, a.payload);
      outcome[a.id] = (added.is_new ? "candidate " : "already tried as candidate ") + std::to_string(added.id);
      ++steered_kernels;
      if (added.is_new)
        if (auto rec = store_.candidate(added.id)) fresh_candidates.push_back(*rec);
    } catch (const UserError& e) {
      outcome[a.id] = "not added: " + e.error().to_string();
    }
  }
  for (const auto& a : steering.pending) {
    std::string what = outcome.count(a.id) ? outcome[a.id] : "taken into this round";
    if (a.kind == SteeringKind::restart_from)
      what = "the round grew from candidate " + std::to_string(*steering.restart_from);
    if (a.kind == SteeringKind::hint) what = "in the proposer's context from this round on";
    if (a.kind == SteeringKind::ban_move || a.kind == SteeringKind::ban_idea)
      what = "in force from this round on; " + std::to_string(banned) + " proposal(s) dropped this round";
    mark_steering_applied(store_, a.id, index, what);
  }
  if (!steering.pending.empty())
    log_ << "round " << index + 1 << ": applied " << steering.pending.size() << " steering action(s)" << std::endl;
  log_ << "round " << index + 1 << "/" << options_.rounds << ": " << props.ideas.size() << " idea(s), "
       << fresh_candidates.size() << " new candidate(s) from " << source
       << (steered_end > steered_begin || steered_kernels ? " and steering" : "")
       << (duplicates ? ", " + std::to_string(duplicates) + " already tried" : "")
       << (banned ? ", " + std::to_string(banned) + " banned" : "") << std::endl;
  bool ok = evaluate(run, fresh_candidates);
  if (ok) store_.finish_round(round, props.prompt_tokens, props.completion_tokens);
  progress(run, round, index);
  if (options_.budget_tokens > 0 &&
      tokens_used(run) + (ok ? 0 : props.prompt_tokens + props.completion_tokens) >= options_.budget_tokens) {
    log_ << "token budget of " << options_.budget_tokens << " spent" << std::endl;
    return false;
  }
  return ok;
}

bool SearchLoop::out_of_time() const {
  return options_.budget_minutes > 0 && monotonic_seconds() - started_ > options_.budget_minutes * 60;
}

bool SearchLoop::budget_left(int64_t run) const {
  if (options_.budget_candidates > 0 &&
      static_cast<int64_t>(store_.evaluations(run).size()) >= options_.budget_candidates)
    return false;
  if (out_of_time()) return false;
  if (options_.budget_tokens > 0 && tokens_used(run) >= options_.budget_tokens) return false;
  return true;
}

int64_t SearchLoop::tokens_used(int64_t run) const {
  int64_t t = 0;
  for (const auto& r : store_.round_summaries(run)) t += r.round.prompt_tokens + r.round.completion_tokens;
  return t;
}

std::optional<double> SearchLoop::score(const EvaluationRecord& e) const {
  if (!e.verified) return std::nullopt;
  return options_.backend == "interp" ? e.cost_estimate : e.median_ms;
}

void SearchLoop::progress(int64_t run, int64_t round_id, int index) {
  const bool interp = options_.backend == "interp";
  std::map<int64_t, int> round_of;
  std::optional<int64_t> first;
  for (const auto& c : store_.candidates(run)) {
    round_of[c.id] = c.round_index;
    if (!first) first = c.id;
  }
  int candidates = 0;
  for (const auto& [id, r] : round_of) candidates += r == index;
  int evaluated = 0, verified = 0;
  std::map<std::string, int> failed;
  std::optional<double> best, baseline;
  for (const auto& e : store_.evaluations(run)) {
    auto s = score(e);
    if (s && (!best || *s < *best)) best = s;
    if (first && e.candidate == *first) baseline = s;
    if (round_of[e.candidate] != index) continue;
    ++evaluated;
    if (e.verified)
      ++verified;
    else
      ++failed[e.verdict];
  }
  int64_t tokens = 0;
  for (const auto& r : store_.round_summaries(run))
    if (r.round.id == round_id) tokens = r.round.prompt_tokens + r.round.completion_tokens;
  const char* unit = interp ? " ms (interp, cost model estimate)" : " ms (GPU median)";
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(4);
  line << "round " << index + 1 << "/" << options_.rounds << " | evaluated " << evaluated << "/" << candidates
       << " | verified " << verified << " | rejected " << evaluated - verified;
  if (!failed.empty()) {
    line << " (";
    bool sep = false;
    for (const auto& [v, n] : failed) line << (sep ? ", " : "") << v << " " << n, sep = true;
    line << ")";
  }
  line << " | best ";
  if (best)
    line << *best << unit;
  else
    line << "none yet" << (interp ? " (interp, cost model estimate)" : "");
  line << " | speedup over baseline ";
  line.precision(2);
  if (best && baseline && *best > 0)
    line << *baseline / *best << "x" << (interp ? " (interp, cost model estimate)" : "");
  else
    line << "n/a";
  line << " | tokens " << tokens;
  if (std::string st = evaluator_->status(); !st.empty()) line << " | " << st;
  log_ << line.str() << std::endl;
}

GoalInputs SearchLoop::goal_inputs(int64_t run) const {
  GoalInputs in;
  auto top = store_.leaderboard(run, 1);
  if (!top.empty()) {
    const auto& e = top[0].evaluation;
    in.best_ms = score(e);
    if (options_.backend == "interp") {
      // The estimate is for the bench size; a problem without one has no floor to compare with.
      if (in.best_ms && problem_.sizes.count("bench"))
        in.best_floor_pct = floor_share(problem_, "bench", e.precision, *in.best_ms).pct;
    } else {
      in.best_floor_pct = e.pct_of_floor;
    }
  }
  auto cands = store_.candidates(run);
  if (!cands.empty())
    if (auto e = store_.evaluation(cands.front().id)) in.baseline_ms = score(*e);
  return in;
}

GoalStanding SearchLoop::goal_standing_now(int64_t run, const Goal& goal) const {
  return goal_standing(goal, goal_inputs(run));
}

GoalStanding SearchLoop::check_goal(int64_t run, int index, const Goal& goal) {
  GoalStanding g = goal_standing_now(run, goal);
  if (!g.met) return g;
  auto top = store_.leaderboard(run, 1);
  auto rec = find_goal(store_, run);
  if (rec && !rec->met_round && !top.empty()) record_goal_met(store_, run, index, top[0].candidate.id, *g.value);
  std::ostringstream line;
  line << "goal met: " << goal.text << " (now " << *g.value << (goal.metric == GoalMetric::floor_share ? "%" : "")
       << (goal.metric == GoalMetric::speedup   ? "x"
           : goal.metric == GoalMetric::time_ms ? " ms"
                                                : "")
       << (options_.backend == "interp" ? ", cost model estimate" : "") << ") by candidate "
       << (top.empty() ? 0 : top[0].candidate.id) << " in round " << index + 1 << "; stopping";
  log_ << line.str() << std::endl;
  return g;
}

SearchSummary SearchLoop::summarise(int64_t run, SearchStatus status) const {
  SearchSummary s;
  s.run = run;
  s.status = status;
  s.problem_class = problem_class_name(classify_pipeline(problem_.pipeline));
  for (const auto& r : store_.round_summaries(run)) s.rounds_finished += !r.round.finished.empty();
  auto cands = store_.candidates(run);
  for (const auto& e : store_.evaluations(run)) {
    ++s.evaluated;
    s.verified += e.verified;
    if (!cands.empty() && e.candidate == cands.front().id) s.baseline = score(e);
  }
  auto top = store_.leaderboard(run, 1);
  if (!top.empty()) {
    s.best_candidate = top[0].candidate.id;
    s.best = score(top[0].evaluation);
  }
  return s;
}

}  // namespace cusched::search
