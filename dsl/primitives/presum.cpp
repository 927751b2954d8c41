// presum: a sum over one index of a contraction's output, taken through the contraction
// into the one operand that reads that index.
#include <algorithm>
#include <optional>
#include <set>

#include "dsl/error.h"
#include "dsl/expr_equal.h"
#include "dsl/expr_substitute.h"
#include "dsl/padded_load.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

namespace {

// e = coefficient * load + rest, where `load` is the only kind of load of stage `g` in e
// and neither the coefficient nor the rest loads g (either may be absent: undefined).
struct LinearTerm {
  Expr coefficient, rest, load;
};

Expr add_or(const Expr& a, const Expr& b, bool subtract) {
  if (!a.defined()) return b.defined() ? (subtract ? -b : b) : Expr();
  if (!b.defined()) return a;
  return subtract ? a - b : a + b;
}

Expr scaled(const Expr& a, const Expr& k, ExprOp op) { return a.defined() ? make_binary(op, a, k) : Expr(); }

std::optional<LinearTerm> linear_in(const Expr& e, const std::string& g, const std::set<std::string>& rvars) {
  if (!loads_from(e, g)) return LinearTerm{Expr(), e, Expr()};
  auto free_of_rvars = [&](const Expr& k) {
    for (const auto& r : rvars)
      if (mentions_var(k, r)) return false;
    return !loads_from(k, g);
  };
  switch (e->op) {
    case ExprOp::Load:
      if (e->name != g) return std::nullopt;  // g read inside another load's index
      return LinearTerm{make_float(1.0, e->type), Expr(), e};
    case ExprOp::Add:
    case ExprOp::Sub: {
      auto a = linear_in(e->args[0], g, rvars), b = linear_in(e->args[1], g, rvars);
      if (!a || !b) return std::nullopt;
      if (a->load.defined() && b->load.defined() && !same_expr(a->load, b->load)) return std::nullopt;
      const bool sub = e->op == ExprOp::Sub;
      return LinearTerm{add_or(a->coefficient, b->coefficient, sub), add_or(a->rest, b->rest, sub),
                        a->load.defined() ? a->load : b->load};
    }
    case ExprOp::Neg: {
      auto a = linear_in(e->args[0], g, rvars);
      if (!a) return std::nullopt;
      return LinearTerm{-a->coefficient, a->rest.defined() ? -a->rest : Expr(), a->load};
    }
    case ExprOp::Mul:
    case ExprOp::Div: {
      // The factor or divisor that does not read g must not vary along the sum.
      const bool left = loads_from(e->args[0], g);
      if (e->op == ExprOp::Div && !left) return std::nullopt;
      const Expr& k = left ? e->args[1] : e->args[0];
      if (!free_of_rvars(k)) return std::nullopt;
      auto a = linear_in(left ? e->args[0] : e->args[1], g, rvars);
      if (!a) return std::nullopt;
      return LinearTerm{scaled(a->coefficient, k, e->op), scaled(a->rest, k, e->op), a->load};
    }
    default:
      return std::nullopt;
  }
}

void collect_vars(const Expr& e, std::vector<std::string>& out) {
  rewrite(e, [&](const Expr& x) {
    if (x->op == ExprOp::Var && std::find(out.begin(), out.end(), x->name) == out.end()) out.push_back(x->name);
    return x;
  });
}

std::shared_ptr<FuncDef> reduction_stage(const std::string& name, const FuncDef& like, std::vector<std::string> vars,
                                         std::vector<Expr> extents, std::vector<ReductionVar> rvars, Expr body) {
  auto f = std::make_shared<FuncDef>();
  f->name = name;
  f->dtype = like.dtype;
  f->vars = std::move(vars);
  f->extents = std::move(extents);
  ExprNode red;
  red.op = ExprOp::Reduce;
  red.type = body->type;
  red.reduce_op = ReduceOp::Sum;
  red.rvars = std::move(rvars);
  red.args = {std::move(body)};
  f->body = make_node(red);
  return f;
}

void apply_presum(ScheduleState& st, StepJson& step) {
  const std::string stage = step["stage"];
  st.stage(stage);
  const FuncDef* s = st.stage_def(stage);
  const std::string fix =
      "Apply presum to a stage that sums, over one variable, a contraction's output "
      "scaled and shifted by terms that do not read it: S(i) = sum(j: G(i, j) * c + b(j)) "
      "with G(i, j) = sum(k: A(i, k) * B(j, k)).";
  if (!s->is_reduction() || s->body->reduce_op != ReduceOp::Sum || s->body->rvars.size() != 1)
    fail("presum-not-sum", "Stage '" + stage + "' is not a sum over one reduction variable.", fix);
  const ReductionVar j = s->body->rvars[0];
  // The contraction: the one stage read linearly by the summand whose index j is.
  const FuncDef* g = nullptr;
  std::optional<LinearTerm> term;
  for (const auto& candidate : st.stages)
    if (candidate->is_sum_of_load_products() && loads_from(s->body->args[0], candidate->name)) {
      auto t = linear_in(s->body->args[0], candidate->name, {j.name});
      if (t && t->load.defined() && !g) {
        g = candidate.get();
        term = t;
      }
    }
  if (!g)
    fail("presum-no-contraction",
         "The summand of '" + stage + "' is not a contraction's output times a factor plus terms without it.", fix);
  // The contraction's index that the sum runs over: a bare j at one position, j nowhere else.
  const Expr& load = term->load;
  int d = -1, mentions = 0;
  for (size_t a = 0; a < load->args.size(); ++a) {
    if (!mentions_var(load->args[a], j.name)) continue;
    ++mentions;
    if (load->args[a]->op == ExprOp::Var) d = static_cast<int>(a);
  }
  if (mentions != 1 || d < 0)
    fail("presum-index",
         "Stage '" + stage + "' reads '" + g->name + "' at an index that is not its sum variable '" + j.name +
             "' alone.",
         fix);
  const std::string vd = g->vars[static_cast<size_t>(d)];
  if (eval_int(g->extents[static_cast<size_t>(d)], st.ctx.sizes) != rvar_extent(j, st.ctx.sizes))
    fail("presum-index", "The sum over '" + j.name + "' does not cover all of '" + g->name + "' along '" + vd + "'.",
         fix);
  // The operand that reads vd: exactly one of the product's two loads, vd a whole index of it.
  auto loads = *g->product_loads();
  const bool first = mentions_var(loads.first, vd), second = mentions_var(loads.second, vd);
  if (first == second)
    fail("presum-operand",
         "In '" + g->name + "', " + (first ? "both operands read '" : "neither operand reads '") + vd +
             "', so the sum over it does not move into one of them.",
         fix);
  const Expr& operand = first ? loads.first : loads.second;
  if (is_padded_load(operand))
    fail("presum-operand", "The operand '" + operand->name + "' of '" + g->name + "' is a padded load.", fix);
  std::vector<std::string> operand_vars;
  for (const auto& a : operand->args)
    if (!(a->op == ExprOp::Var && a->name == vd)) {
      if (mentions_var(a, vd))
        fail("presum-operand", "'" + operand->name + "' reads '" + vd + "' inside an index expression.", fix);
      collect_vars(a, operand_vars);
    }
  for (const auto& [name, other] : st.schedules)
    if (other.location == ComputeLocation::At && (other.at_stage == stage || other.at_stage == g->name))
      fail("presum-hosts-producer",
           "Stage '" + name + "' is computed at a loop of '" + other.at_stage + "', which presum rebuilds.",
           "Apply presum before compute_at.");

  if (step["name"].is_null()) step["name"] = operand->name + "_presum";
  const std::string p_name = step["name"];
  require_new_stage_name(st, p_name);

  // P(u...) = sum(j: operand(... j ...)), u the operand's other variables.
  std::map<std::string, Expr> extent_of;
  for (size_t v = 0; v < g->vars.size(); ++v) extent_of[g->vars[v]] = g->extents[v];
  for (const auto& r : g->body->rvars) extent_of[r.name] = r.extent_expr.defined() ? r.extent_expr : make_int(r.extent);
  if (std::find(operand_vars.begin(), operand_vars.end(), j.name) != operand_vars.end())
    fail("presum-names",
         "The sum variable '" + j.name + "' is also a variable of '" + operand->name + "' in '" + g->name + "'.",
         "Rename one of them in the algorithm.");
  for (const auto& r : g->body->rvars)
    if (std::find(s->vars.begin(), s->vars.end(), r.name) != s->vars.end())
      fail("presum-names",
           "The contraction's reduction variable '" + r.name + "' is also a variable of '" + stage + "'.",
           "Rename one of them in the algorithm.");
  std::vector<Expr> p_extents;
  std::map<std::string, Expr> as_pure;
  for (const auto& v : operand_vars) {
    p_extents.push_back(extent_of.at(v));
    as_pure[v] = make_var(v);
  }
  as_pure[vd] = make_var(j.name, true);
  Expr p_operand = substitute(operand, as_pure);
  auto p = reduction_stage(p_name, *g, operand_vars, p_extents, {j}, p_operand);
  p->dtype = operand->type;

  // The contraction with P in the operand's place, at the point the sum read it.
  std::vector<Expr> p_index;
  for (const auto& v : operand_vars) {
    bool reduction = false;
    for (const auto& r : g->body->rvars) reduction = reduction || r.name == v;
    p_index.push_back(make_var(v, reduction));
  }
  const Expr p_load = make_load(p_name, p->dtype, p_index);
  Expr product = rewrite(g->body->args[0], [&](const Expr& x) {
    return x->op == ExprOp::Load && x->name == operand->name && mentions_var(x, vd) ? p_load : x;
  });
  std::map<std::string, Expr> at_sum;
  for (size_t v = 0; v < g->vars.size(); ++v)
    if (static_cast<int>(v) != d) at_sum[g->vars[v]] = load->args[v];
  product = substitute(product, at_sum);

  std::vector<std::shared_ptr<const FuncDef>> made = {p};
  std::shared_ptr<FuncDef> rewritten;
  if (!term->rest.defined()) {
    rewritten = reduction_stage(stage, *s, s->vars, s->extents, g->body->rvars, product * term->coefficient);
  } else {
    // S = coefficient * S_dot + S_rest, each sum a stage of its own.
    const std::string dot = stage + "_dot", rest = stage + "_rest";
    require_new_stage_name(st, dot);
    require_new_stage_name(st, rest);
    made.push_back(reduction_stage(dot, *s, s->vars, s->extents, g->body->rvars, product));
    made.push_back(reduction_stage(rest, *s, s->vars, s->extents, {j}, term->rest));
    std::vector<Expr> at;
    for (const auto& v : s->vars) at.push_back(make_var(v));
    rewritten = std::make_shared<FuncDef>(*s);
    rewritten->body = make_load(dot, s->dtype, at) * term->coefficient + make_load(rest, s->dtype, at);
  }

  const StageSchedule before = st.schedules.at(stage);
  for (auto& sd : st.stages)
    if (sd->name == stage) sd = rewritten;
  auto pos = std::find_if(st.stages.begin(), st.stages.end(), [&](const auto& sd) { return sd->name == stage; });
  st.stages.insert(pos, made.begin(), made.end());
  for (const auto& m : made) st.schedules[m->name] = ScheduleState::initial_schedule(*m, st.ctx.sizes);
  // S keeps where it is computed (a reduction is never inlined), its loops fresh.
  StageSchedule fresh = ScheduleState::initial_schedule(*rewritten, st.ctx.sizes);
  fresh.location = before.location;
  fresh.at_stage = before.at_stage;
  fresh.at_loop = before.at_loop;
  st.schedules[stage] = fresh;
  // The contraction goes when nothing reads it any more.
  const std::string g_name = g->name;
  bool read = st.is_output(g_name);
  for (const auto& sd : st.stages) read = read || (sd->name != g_name && loads_from(sd->body, g_name));
  if (!read) {
    st.stages.erase(
        std::remove_if(st.stages.begin(), st.stages.end(), [&](const auto& sd) { return sd->name == g_name; }),
        st.stages.end());
    st.schedules.erase(g_name);
  }
}

}  // namespace

PrimitiveDef presum_primitive() {
  PrimitiveDef p;
  p.name = "presum";
  p.summary =
      "Takes a stage's sum over one variable through the contraction it sums: where S sums G over j (scaled by "
      "factors and shifted by terms that do not vary along j) and G is a sum of products of which one operand "
      "alone reads j, the operand is summed over j first, as a stage of its own, and S becomes the contraction "
      "of the other operand with that sum; G goes when nothing else reads it. A GEMM followed by a row sum "
      "becomes a column sum of the weights and a matrix-vector product: the same value in exact arithmetic, "
      "summed in another order. Terms of the summand that do not read G become a sum of their own, "
      "S_rest, and the contraction S_dot. Schedule the new stages after this step.";
  p.args = {stage_arg(true), name_arg("name", "Name of the operand's sum (default operand + \"_presum\").", false)};
  p.before = "G(i, j) = sum(k: A(i, k) * B(j, k))\nS(i) = sum(rj: G(i, rj) / 2)";
  p.after = "B_presum(k) = sum(rj: B(rj, k))\nS(i) = sum(k: A(i, k) * B_presum(k) * (1 / 2))";
  p.example = R"({"op": "presum", "stage": "S"})";
  p.apply = apply_presum;
  return p;
}

}  // namespace cusched
