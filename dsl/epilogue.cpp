#include "dsl/epilogue.h"

#include <set>

#include "dsl/inlined_stages.h"
#include "dsl/padded_load.h"

namespace cusched {

namespace {

// The loads of stages in `e`.
void stage_loads(const ScheduleState& st, const Expr& e, std::vector<Expr>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load && !e->tensor && st.stage_def(e->name)) out.push_back(e);
  for (const auto& a : e->args) stage_loads(st, a, out);
}

// The loads of stages in `consumer`'s expression with its inlined producers expanded,
// and the names of those stages.
std::vector<Expr> epilogue_loads(const ScheduleState& st, const std::string& consumer, std::set<std::string>* read) {
  std::vector<Expr> loads;
  stage_loads(st, epilogue_body(st, consumer), loads);
  for (const auto& l : loads) read->insert(l->name);
  return loads;
}

}  // namespace

Expr epilogue_body(const ScheduleState& st, const std::string& consumer) {
  return expand_inlined_stages(st, st.stage_def(consumer)->body);
}

std::string epilogue_producer(const ScheduleState& st, const std::string& consumer) {
  const FuncDef* y = st.stage_def(consumer);
  if (!y) return "";
  std::set<std::string> names;
  epilogue_loads(st, consumer, &names);
  if (names.size() != 1) return "";
  const FuncDef* g = st.stage_def(*names.begin());
  return g && g->is_reduction() && !g->is_scan() ? g->name : "";
}

std::optional<EpilogueRefusal> epilogue_refusal(const ScheduleState& st, const std::string& consumer) {
  const FuncDef* y = st.stage_def(consumer);
  const StageSchedule& ys = st.stage(consumer);
  const std::string fix_pointwise = "Fold a pointwise stage (no reduction or scan) such as relu(C(i, j) + bias(j)).";
  if (y->is_reduction() || y->is_scan())
    return EpilogueRefusal{"epilogue-not-pointwise", "Stage '" + consumer + "' is a reduction or a scan.",
                           fix_pointwise};
  if (ys.location != ComputeLocation::Root)
    return EpilogueRefusal{"epilogue-not-root",
                           "Stage '" + consumer +
                               "' is inlined or computed at another stage's loop, so it has no store "
                               "of its own to fold.",
                           "Leave the stage at root (remove its compute_inline or compute_at) before folding it."};
  std::set<std::string> read;
  const std::vector<Expr> loads = epilogue_loads(st, consumer, &read);
  if (read.size() != 1)
    return EpilogueRefusal{
        "epilogue-reads-several-stages",
        "Stage '" + consumer + "' reads " + std::to_string(read.size()) +
            " stages once its inlined producers are expanded; an epilogue reads exactly one, the reduction it follows.",
        "Inline the pointwise stages between the reduction and this stage, and compute other reductions it reads "
        "into the reduction's kernel or leave this stage as a kernel of its own."};
  const std::string g = *read.begin();
  const FuncDef* gf = st.stage_def(g);
  if (!gf->is_reduction() || gf->is_scan())
    return EpilogueRefusal{"epilogue-producer-not-reduction",
                           "Stage '" + consumer + "' reads stage '" + g + "', which is not a reduction.",
                           "Inline '" + g + "' into '" + consumer + "' instead (compute_inline)."};
  const StageSchedule& gs = st.stage(g);
  if (st.is_output(g))
    return EpilogueRefusal{"epilogue-producer-is-output",
                           "Stage '" + g + "' is an output of the pipeline, so its own values must be stored.",
                           "Leave '" + consumer + "' as a kernel of its own."};
  if (gs.location != ComputeLocation::Root)
    return EpilogueRefusal{"epilogue-producer-not-root",
                           "Stage '" + g +
                               "' is computed at another stage's loop, so it has no final store to fold "
                               "'" +
                               consumer + "' into.",
                           "Compute '" + g + "' at root (compute_root) before folding its consumer."};
  const auto readers = st.consumers_of(g);
  if (readers.size() != 1 || readers[0] != consumer)
    return EpilogueRefusal{
        "epilogue-producer-shared",
        "Stage '" + g + "' is read by other stages than '" + consumer + "', which need its values stored.",
        "Fold only the single reader of a reduction, or leave '" + consumer + "' as a kernel of its own."};
  const bool same_extents = eval_shape(gf->extents, st.ctx.sizes) == eval_shape(y->extents, st.ctx.sizes) &&
                            gf->vars.size() == y->vars.size();
  for (const auto& l : loads) {
    bool at_own_point = same_extents && !is_padded_load(l) && l->args.size() == y->vars.size();
    for (size_t d = 0; at_own_point && d < l->args.size(); ++d)
      at_own_point = l->args[d]->op == ExprOp::Var && l->args[d]->name == y->vars[d];
    if (!at_own_point)
      return EpilogueRefusal{"epilogue-index-mismatch",
                             "Stage '" + consumer + "' reads '" + g + "' at " + to_string(l) +
                                 ", not at its own point (" + consumer +
                                 "'s variables in order, over the same extents).",
                             "Fold only a stage that reads each value of the reduction at the same point: an "
                             "elementwise epilogue of the same shape."};
  }
  return std::nullopt;
}

}  // namespace cusched
