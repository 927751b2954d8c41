#include "dsl/sum_with_variance.h"

#include <algorithm>

#include "dsl/expr_equal.h"
#include "dsl/expr_substitute.h"

namespace cusched {

namespace {

// Why `sum` and `variance` do not reduce the same values, or nullopt when they do.
std::optional<Refusal> different_values(const ScheduleState& st, const std::string& sum, const std::string& variance) {
  const FuncDef* s = st.stage_def(sum);
  const FuncDef* q = st.stage_def(variance);
  if (!s) return Refusal{"unknown-stage", "There is no stage '" + sum + "'.", "Name a sum stage of the pipeline."};
  if (!q)
    return Refusal{"unknown-stage", "There is no stage '" + variance + "'.",
                   "Name a variance stage of the pipeline in \"variance\"."};
  if (!s->is_reduction() || s->is_scan() || s->body->reduce_op != ReduceOp::Sum)
    return Refusal{"sum-with-variance-not-sum", "Stage '" + sum + "' is not a sum reduction.",
                   "Apply sum_with_variance to a stage defined as sum(...) over the values the variance reduces."};
  if (!q->is_reduction() || q->is_scan() || q->body->reduce_op != ReduceOp::Variance)
    return Refusal{"sum-with-variance-not-variance", "Stage '" + variance + "' is not a variance reduction.",
                   "Name in \"variance\" a stage defined as variance(...) over the same values as '" + sum + "'."};
  const auto& sr = s->body->rvars;
  const auto& qr = q->body->rvars;
  bool same_domain = s->vars.size() == q->vars.size() && sr.size() == qr.size() &&
                     eval_shape(s->extents, st.ctx.sizes) == eval_shape(q->extents, st.ctx.sizes);
  for (size_t i = 0; same_domain && i < sr.size(); ++i)
    same_domain = rvar_extent(sr[i], st.ctx.sizes) == rvar_extent(qr[i], st.ctx.sizes);
  if (!same_domain)
    return Refusal{"sum-with-variance-domain-mismatch",
                   "Stages '" + sum + "' and '" + variance +
                       "' do not have the same pure and reduction extents, so the variance's pass does not see the "
                       "sum's values.",
                   "Pair a sum with the variance of the same values over the same domain, or leave the sum a "
                   "kernel of its own."};
  // The sum's body with its variables renamed to the variance's, by position.
  std::map<std::string, Expr> rename;
  for (size_t i = 0; i < s->vars.size(); ++i) rename[s->vars[i]] = make_var(q->vars[i]);
  for (size_t i = 0; i < sr.size(); ++i) rename[sr[i].name] = make_var(qr[i].name, true);
  if (!same_expr(substitute(s->body->args[0], rename), q->body->args[0]))
    return Refusal{"sum-with-variance-body-mismatch",
                   "Stage '" + sum + "' sums " + to_string(s->body->args[0]) + " but '" + variance + "' reduces " +
                       to_string(q->body->args[0]) + ": not the same values.",
                   "Pair a sum with the variance of the same expression, or leave the sum a kernel of its own."};
  return std::nullopt;
}

// The root stage in whose kernel `stage` is computed: itself at root, the stage it is
// computed at, or the reduction it is folded into, followed to a root stage.
std::string host_root(const ScheduleState& st, std::string stage) {
  for (size_t hops = 0; hops <= st.schedules.size(); ++hops) {
    const StageSchedule& s = st.stage(stage);
    if (!s.epilogue_of.empty())
      stage = s.epilogue_of;
    else if (s.location == ComputeLocation::At)
      stage = s.at_stage;
    else
      return stage;
  }
  return stage;
}

int64_t stage_index(const ScheduleState& st, const std::string& name) {
  for (size_t i = 0; i < st.stages.size(); ++i)
    if (st.stages[i]->name == name) return static_cast<int64_t>(i);
  return -1;
}

}  // namespace

std::optional<Refusal> sum_with_variance_refusal(const ScheduleState& st, const std::string& sum,
                                                 const std::string& variance, bool kernel_order) {
  if (auto r = different_values(st, sum, variance)) return r;
  const StageSchedule& ss = st.stage(sum);
  const StageSchedule& qs = st.stage(variance);
  if (ss.location != ComputeLocation::Root)
    return Refusal{"sum-with-variance-not-root",
                   "Stage '" + sum +
                       "' is computed at another stage's loop; a sum stored by the variance's kernel "
                       "is a root stage in global memory.",
                   "Leave '" + sum + "' at root (remove its compute_at) before pairing it with '" + variance + "'."};
  if (qs.location != ComputeLocation::Root)
    return Refusal{"sum-with-variance-variance-not-root",
                   "Stage '" + variance +
                       "' is computed at another stage's loop, so it has no kernel of its own to "
                       "store '" +
                       sum + "' from.",
                   "Compute '" + variance + "' at root (compute_root) before pairing '" + sum + "' with it."};
  if (qs.cache_write_scope)
    return Refusal{"sum-with-variance-output-tile",
                   "Stage '" + variance +
                       "' stores its values through an on-chip output tile (cache_write), which "
                       "the sum's store does not pass through.",
                   "Drop the cache_write of '" + variance + "', or leave '" + sum + "' a kernel of its own."};
  const int64_t at = stage_index(st, variance);
  for (const auto& reader : kernel_order ? st.consumers_of(sum) : std::vector<std::string>{}) {
    const std::string host = host_root(st, reader);
    if (stage_index(st, host) <= at)
      return Refusal{"sum-with-variance-read-before",
                     "Stage '" + reader + "' reads '" + sum + "' in the kernel of '" + host +
                         "', which runs before the kernel of '" + variance + "' that would store it.",
                     "Inline or compute '" + reader + "' into a stage defined after '" + variance + "', or leave '" +
                         sum + "' a kernel of its own."};
  }
  return std::nullopt;
}

std::string variance_partner(const ScheduleState& st, const std::string& sum) {
  for (const auto& f : st.stages)
    if (f->name != sum && f->is_reduction() && !f->is_scan() && f->body->reduce_op == ReduceOp::Variance &&
        !different_values(st, sum, f->name))
      return f->name;
  return "";
}

}  // namespace cusched
