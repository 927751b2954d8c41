// SearchLoop::evaluate: a round's stored candidates prepared on the CPU threads
// (validate, lower, emit, estimate, audit; then, for those the budget sends to the GPU,
// compile), then verified and timed by the evaluator, on the GPU in evaluation_order
// (the cheapest of each precision and of each promising idea first).
#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>

#include "search/candidate_evaluation.h"
#include "search/evaluation_order.h"
#include "search/loop.h"
#include "search/parallel_for.h"
#include "search/steered_kernel.h"

namespace cusched::search {
namespace {

bool is_rejection(std::optional<runtime::Verdict> v) {
  return v == runtime::Verdict::invalid_schedule || v == runtime::Verdict::lowering_error ||
         v == runtime::Verdict::audit_rejected;
}

}  // namespace

bool SearchLoop::evaluate(int64_t run, const std::vector<CandidateRecord>& candidates) {
  if (candidates.empty()) return true;
  EvalConfig cfg;
  cfg.backend = options_.backend;
  cfg.size = options_.resolved_size();
  cfg.seed = options_.seed;
  cfg.strict = options_.strict;
  cfg.audit = options_.audit;
  cfg.watchdog_s = options_.watchdog_s;
  cfg.timing_budget_ms = 1000.0 * options_.timing_budget_s;
  const bool interp = options_.backend == "interp";

  // Every candidate started counts against the candidate budget: `left` of this round's may start.
  const size_t count = candidates.size();
  size_t left = count;
  bool stopped = false;
  if (options_.budget_candidates > 0) {
    const int64_t room =
        std::max<int64_t>(0, options_.budget_candidates - static_cast<int64_t>(store_.evaluations(run).size()));
    if (static_cast<int64_t>(count) > room) {
      left = static_cast<size_t>(room);
      stopped = true;
    }
  }
  if (left == 0) return false;

  std::mutex store_mu;
  auto record = [&](const CandidateRecord& c, const CandidateOutcome& o) {
    std::lock_guard<std::mutex> lock(store_mu);
    if (!o.ir_text.empty())
      store_.save_artifacts(
          c.id, {o.bundle.source, o.ir_text, o.bundle.to_json(), o.audit_findings, nlohmann::json::object()});
    if (is_rejection(o.verdict)) {
      store_.reject(c.id, o.verdict_text(), o.reason);
      return;
    }
    EvaluationRecord e;
    e.candidate = c.id;
    e.verdict = o.verdict_text();
    e.verified = o.verified();
    e.reason = o.reason;
    e.cost_estimate = o.cost_estimate_ms;
    e.precision = precision_name(o.precision);
    e.backend = options_.backend;
    e.result = o.to_json();
    if (o.gpu) {
      if (o.gpu->median_ms > 0) {
        e.median_ms = o.gpu->median_ms;
        e.min_ms = o.gpu->min_ms;
        e.max_ms = o.gpu->max_ms;
        e.pct_of_floor = o.gpu->pct_of_floor;
      }
      e.max_abs_error = o.gpu->max_abs_err;
      e.max_rel_error = o.gpu->max_rel_err;
    }
    if (o.interp) {
      e.max_abs_error = o.interp->max_abs_err;
      e.max_rel_error = o.interp->max_rel_err;
    }
    store_.save_evaluation(e);
    // GPU evaluations take seconds each: one line per candidate shows the run is alive.
    if (o.gpu) {
      std::ostringstream line;
      line << "  candidate " << c.id << ": " << o.verdict_text();
      if (!o.verified() && !o.reason.empty())
        line << " (" << (o.reason.size() > 200 ? o.reason.substr(0, 200) + "..." : o.reason) << ")";
      if (e.median_ms)
        line << ", " << *e.median_ms << " ms (GPU median), " << e.pct_of_floor.value_or(0) << "% of the floor";
      log_ << line.str() << std::endl;
    }
  };

  // The CPU part of every candidate in two passes on the CPU threads. First each is
  // validated, lowered, emitted, estimated (and audited), one of each idea in turn
  // (preparation_order). Then, within the candidate budget, the candidates that go to the
  // evaluator are chosen and compiled in the order they will be evaluated: on the GPU
  // evaluation_order (the cheapest of each precision and of each promising idea by the
  // cost model first, then the rest cheapest first), so that a budget of a few candidates or seconds is spent on
  // the likeliest ones of several ideas, not on the first candidates proposed and not on
  // compiles of those estimated far behind (the early cut then has a good best to compare
  // with soon), and before each slice the candidates of a reduced precision that already
  // gave a wrong output move to the end (defer_failed_precisions); the interpreter takes
  // them in candidate order.
  std::vector<CandidateOutcome> outcomes(count);
  std::vector<char> prepared(count, 0);
  std::vector<int64_t> idea_of(count);
  for (size_t i = 0; i < count; ++i)
    idea_of[i] = candidates[i].idea ? *candidates[i].idea : -1 - static_cast<int64_t>(i);
  const std::vector<size_t> preparing = preparation_order(idea_of);
  // Once the time budget is spent no further candidate is prepared.
  const size_t threads = static_cast<size_t>(cpu_thread_count(options_.cpu_threads));
  const bool in_time = parallel_for(count, threads, [&](size_t, size_t k) {
    if (out_of_time()) return false;
    const size_t i = preparing[k];
    const CandidateRecord& c = candidates[i];
    CandidateOutcome& o = outcomes[i];
    o = is_handwritten(c) ? prepare_kernel_candidate(problem_, store_, c, cfg)
                          : prepare_candidate(problem_, c.schedule, cfg, nullptr, false);
    prepared[i] = 1;
    if (o.verdict || interp) return true;
    std::lock_guard<std::mutex> lock(store_mu);
    store_.save_artifacts(c.id,
                          {o.bundle.source, o.ir_text, o.bundle.to_json(), o.audit_findings, nlohmann::json::object()});
    store_.set_candidate_status(c.id, "lowered");
    o.ir_text.clear();  // the artifacts are stored
    return true;
  });
  stopped = stopped || !in_time;

  std::vector<size_t> order, rejected;  // candidate indices to evaluate, and those rejected
  for (size_t i = 0; i < count; ++i)
    if (prepared[i]) (outcomes[i].verdict ? rejected : order).push_back(i);
  if (!interp) {
    std::vector<double> estimates;
    std::vector<int64_t> ideas;
    std::vector<Precision> precisions;
    for (size_t i : order) {
      estimates.push_back(outcomes[i].cost_estimate_ms);
      ideas.push_back(idea_of[i]);  // a candidate of no idea (a steered kernel, the baseline) is one of its own
      precisions.push_back(outcomes[i].precision);
    }
    std::vector<size_t> by_idea;
    for (size_t k : evaluation_order(estimates, ideas, 4.0, precisions)) by_idea.push_back(order[k]);
    order = std::move(by_idea);
  }
  // The budget goes to the candidates ready for the evaluator first; rejections are stored
  // with what is left of it (the others stay pending).
  if (order.size() > left) {
    order.resize(left);
    stopped = true;
  }
  for (size_t k = 0; k < rejected.size() && order.size() + k < left; ++k)
    record(candidates[rejected[k]], outcomes[rejected[k]]);
  // The compiles, in that order; once the time budget is spent only the first is made, and
  // the candidates left uncompiled stay pending like those not prepared.
  if (!interp && !order.empty()) {
    std::vector<char> compiled(order.size(), 0);
    const bool compiled_in_time = parallel_for(order.size(), threads, [&](size_t, size_t k) {
      if (k > 0 && out_of_time()) return false;
      precompile(outcomes[order[k]].bundle);
      compiled[k] = 1;
      return true;
    });
    stopped = stopped || !compiled_in_time;
    size_t kept = 0;
    while (kept < order.size() && compiled[kept]) ++kept;
    order.resize(kept);
  }
  // On the GPU the candidates go to the evaluator in slices of a few per evaluator: between
  // slices the time budget is checked (a candidate not started stays pending, as one not
  // prepared does) and the early cut follows the best time recorded so far. The
  // interpreter takes them all at once on its threads.
  const size_t slice =
      interp ? std::max<size_t>(1, order.size()) : 2 * static_cast<size_t>(std::max(2, evaluator_->alive()));
  // Results are stored in evaluation order, each once it and every one before it are
  // done, so the store does not depend on which evaluator finished first.
  std::vector<char> finished(order.size(), 0);
  size_t stored = 0;
  std::set<Precision> failed_precisions;  // of candidates with a wrong output so far
  std::vector<Precision> precision_of(count);
  for (size_t i = 0; i < count; ++i) precision_of[i] = outcomes[i].precision;
  for (size_t from = 0; from < order.size(); from += slice) {
    if (from > 0 && out_of_time()) {
      stopped = true;
      break;
    }
    if (!interp) defer_failed_precisions(order, from, precision_of, failed_precisions);
    if (!interp && options_.cut_factor > 0)
      if (auto best = goal_inputs(run).best_ms; best && *best > 0) cfg.cut_ms = options_.cut_factor * *best;
    const size_t to = std::min(order.size(), from + slice);
    std::vector<CandidateOutcome> part;
    for (size_t k = from; k < to; ++k) part.push_back(std::move(outcomes[order[k]]));
    evaluator_->evaluate(problem_, cfg, part, [&](size_t k, CandidateOutcome& o) {
      if (o.verdict == runtime::Verdict::wrong_output) failed_precisions.insert(o.precision);
      outcomes[order[from + k]] = std::move(o);
      finished[from + k] = 1;
      for (; stored < order.size() && finished[stored]; ++stored)
        record(candidates[order[stored]], outcomes[order[stored]]);
    });
  }
  return !stopped;
}

}  // namespace cusched::search
