#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/padded_load.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

// The body of a sum of products of `f` where a split of its reduction variable `var` runs
// past the variable's `extent` (the last part is short): every load that reads `var` reads
// it as a whole index of a dimension exactly `extent` long, and is padded with zero there,
// so that past the end each product is zero. nullopt where the body is not such a product.
static std::optional<Expr> zero_past_the_end(const ScheduleState& st, const FuncDef& f, const std::string& var,
                                             int64_t extent) {
  if (f.body->reduce_op != ReduceOp::Sum || !f.product_loads()) return std::nullopt;
  bool ok = true;
  Expr body = rewrite(f.body->args[0], [&](const Expr& x) {
    if (x->op != ExprOp::Load || !mentions_var(x, var)) return x;
    int whole = -1;
    for (size_t d = 0; d < x->args.size(); ++d) {
      const Expr& a = x->args[d];
      if (a->op == ExprOp::Var && a->name == var && whole < 0)
        whole = static_cast<int>(d);
      else if (mentions_var(a, var))
        ok = false;
    }
    const TensorDef* input = st.ctx.pipeline.find_input(x->name);
    const FuncDef* stage = input ? nullptr : st.stage_def(x->name);
    if (whole < 0 || (!input && !stage) || (is_padded_load(x) && x->fval != 0.0)) {
      ok = false;
      return x;
    }
    const Expr& dim = input ? input->shape[static_cast<size_t>(whole)] : stage->extents[static_cast<size_t>(whole)];
    ok = ok && eval_int(dim, st.ctx.sizes) == extent;
    return is_padded_load(x) ? x : padded(x);
  });
  return ok ? std::optional<Expr>(body) : std::nullopt;
}

// The new reduction stage `name`(loop, pure vars...) holds partial results over the
// rest of the reduction domain; the original stage reduces those partials over `loop`.
static void apply_rfactor(ScheduleState& st, const std::string& stage, const std::string& loop,
                          const std::string& name) {
  StageSchedule& s = st.stage(stage);
  const FuncDef* f = st.stage_def(stage);
  if (!f->is_reduction())
    fail("rfactor-pointwise", "Stage '" + stage + "' is not a reduction.", "rfactor a reduction stage.");
  ReduceOp op = f->body->reduce_op;
  if (is_arg_reduce(op))
    fail("rfactor-argreduce", "rfactor of an argmax/argmin stage is not supported.",
         "Reduce it with cross_thread_reduce instead.");
  if (reduce_carries_triple(op))
    fail("rfactor-variance",
         "rfactor of a variance stage is not supported: its partial results are a count, a mean and a sum of "
         "squared deviations, not one value a stage can hold.",
         "Reduce it with cross_thread_reduce kind warp, block or cluster instead.");
  const LoopInfo& l = require_loop(s, loop);
  if (!l.reduction)
    fail("rfactor-pure-loop", "Loop '" + loop + "' is not a reduction loop.", "rfactor a reduction loop.");
  // The stage's loops are rebuilt, and its reads move to the partial stage.
  for (const auto& [name, other] : st.schedules)
    if (other.location == ComputeLocation::At && other.at_stage == stage)
      fail("rfactor-hosts-producer",
           "Stage '" + name + "' is computed at a loop of '" + stage + "', which rfactor rebuilds.",
           "Apply rfactor before compute_at, then compute '" + name + "' at a loop of the new stages.");
  const auto& rvars = f->body->rvars;
  Expr body = f->body->args[0];
  std::vector<ReductionVar> partial_rvars;
  int64_t loop_extent = l.extent;
  bool found = false;
  for (const auto& rel : s.relations) {
    if (rel.kind == LoopRelation::Split && rel.b == loop) {
      const ReductionVar* rv = nullptr;
      for (const auto& r : rvars)
        if (r.name == rel.a) rv = &r;
      if (!rv) break;
      int64_t extent = eval_int(rv->extent_expr, st.ctx.sizes);
      Expr k = make_var(loop) * make_int(rel.factor) + make_var(rel.c, true);
      if (extent % rel.factor != 0) {
        auto zero_padded = zero_past_the_end(st, *f, rel.a, extent);
        if (!zero_padded)
          fail("rfactor-not-dividing",
               "The split of '" + rel.a + "' by " + std::to_string(rel.factor) + " does not divide its extent " +
                   std::to_string(extent) +
                   ", so the partial stage would read past its end (only a sum of products whose loads read '" + rel.a +
                   "' as a whole index may: they then read zero there).",
               "Split the reduction variable by a factor that divides " + std::to_string(extent) + " before rfactor.");
        body = *zero_padded;
      }
      body = substitute(body, {{rel.a, k}});
      ReductionVar inner;
      inner.name = rel.c;
      inner.extent = rel.factor;
      inner.extent_expr = make_int(rel.factor);
      partial_rvars.push_back(inner);
      for (const auto& r : rvars)
        if (r.name != rel.a) partial_rvars.push_back(r);
      found = true;
      break;
    }
  }
  if (!found) {
    bool original = false;
    for (const auto& r : rvars) {
      if (r.name == loop)
        original = true;
      else
        partial_rvars.push_back(r);
    }
    if (!original || partial_rvars.empty())
      fail("rfactor-bad-loop",
           "Loop '" + loop +
               "' must be the outer loop of a split of a reduction variable, or one of several reduction variables.",
           "Split the reduction variable first (e.g. k into ko, ki) and rfactor ko.");
    body = substitute(body, {{loop, make_var(loop)}});
  }
  require_new_stage_name(st, name);

  auto partial = std::make_shared<FuncDef>();
  partial->name = name;
  partial->vars.push_back(loop);
  partial->extents.push_back(make_int(loop_extent));
  for (size_t i = 0; i < f->vars.size(); ++i) {
    partial->vars.push_back(f->vars[i]);
    partial->extents.push_back(f->extents[i]);
  }
  ExprNode red = *f->body;
  red.rvars = partial_rvars;
  red.args = {body};
  partial->body = make_node(red);
  partial->dtype = f->dtype;

  auto merged = std::make_shared<FuncDef>(*f);
  std::vector<Expr> idx = {make_var(loop, true)};
  for (const auto& v : f->vars) idx.push_back(make_var(v));
  ReductionVar outer;
  outer.name = loop;
  outer.extent = loop_extent;
  outer.extent_expr = make_int(loop_extent);
  ExprNode top = *f->body;
  top.rvars = {outer};
  Expr load = make_load(name, f->dtype, idx);
  top.args = {load};
  merged->body = make_node(top);

  for (auto& sd : st.stages)
    if (sd->name == stage) sd = merged;
  auto pos = st.stages.begin();
  while ((*pos)->name != stage) ++pos;
  st.stages.insert(pos, partial);
  StageSchedule fresh = ScheduleState::initial_schedule(*merged, st.ctx.sizes);
  fresh.location = s.location;
  fresh.at_stage = s.at_stage;
  fresh.at_loop = s.at_loop;
  st.schedules[stage] = fresh;
  st.schedules[name] = ScheduleState::initial_schedule(*partial, st.ctx.sizes);
}

PrimitiveDef rfactor_primitive() {
  PrimitiveDef p;
  p.name = "rfactor";
  p.summary =
      "Factors a reduction into two stages: a new stage of partial results, indexed by the given reduction loop "
      "(which becomes a pure, parallel loop there), and the original stage, which now reduces those partials. This is "
      "how a long reduction spreads over many blocks: the partial stage runs in one launch, the final reduction in "
      "the next. Both stages start with fresh loops; schedule them after this step. The split must divide the "
      "reduction, except for a sum of products whose loads read the variable as a whole index of a dimension that "
      "long: those loads are then padded with zero, so the short last part adds zero past the end (split-K of a "
      "GEMM over any k).";
  p.args = {stage_arg(true),
            name_arg("loop", "The outer loop of a split reduction variable (or one of several reduction variables)."),
            name_arg("name", "Name of the new partial stage (default stage + \"_rf\").", false)};
  p.before = "S[i] = sum_{k in 0..N} X[i,k]      // after split k -> ko, ki";
  p.after = "S_rf[ko, i] = sum_{ki} X[i, ko*F+ki]\nS[i] = sum_{ko} S_rf[ko, i]";
  p.example = R"({"op": "rfactor", "stage": "S", "loop": "ko", "name": "S_rf"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"];
    if (step["name"].is_null()) step["name"] = stage + "_rf";
    apply_rfactor(st, stage, step["loop"], step["name"]);
  };
  return p;
}

}  // namespace cusched
