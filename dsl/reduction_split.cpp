#include "dsl/reduction_split.h"

#include <algorithm>
#include <map>
#include <set>

#include "dsl/error.h"
#include "dsl/expr_equal.h"
#include "dsl/expr_substitute.h"
#include "dsl/func.h"

namespace cusched {

namespace {

// The variables `e` reads, by name: pure ones in `pure`, reduction ones in `reduction`
// (the reduction variables it binds itself left out).
void free_vars(const Expr& e, std::set<std::string>& pure, std::set<std::string>& reduction,
               std::set<std::string>& bound) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Var) {
    if (!e->is_reduction_var)
      pure.insert(e->name);
    else if (!bound.count(e->name))
      reduction.insert(e->name);
    return;
  }
  std::vector<std::string> added;
  if (e->op == ExprOp::Reduce)
    for (const auto& r : e->rvars)
      if (bound.insert(r.name).second) added.push_back(r.name);
  for (const auto& a : e->args) free_vars(a, pure, reduction, bound);
  for (const auto& n : added) bound.erase(n);
}

Expr extent_of(const ReductionVar& r) { return r.extent_expr.defined() ? r.extent_expr : Expr(r.extent); }

class Splitter {
 public:
  Splitter(std::string stage, const std::vector<Var>& vars) : stage_(std::move(stage)), vars_(vars) {}

  Expr split(const Expr& body) {
    if (body.defined() && body->op == ExprOp::Reduce) {
      // The top reduction stays; reductions in its body are split.
      ExprNode n = *body;
      enclosing_.insert(enclosing_.end(), n.rvars.begin(), n.rvars.end());
      n.args = {walk(n.args.at(0))};
      enclosing_.resize(enclosing_.size() - n.rvars.size());
      return make_node(std::move(n));
    }
    return walk(body);
  }

 private:
  Expr walk(const Expr& e) {
    if (!e.defined()) return e;
    if (e->op == ExprOp::Reduce) return stage_load(e);
    bool changed = false;
    std::vector<Expr> args;
    for (const auto& a : e->args) {
      args.push_back(walk(a));
      changed |= args.back().get() != a.get();
    }
    if (!changed) return e;
    ExprNode n = *e;
    n.args = std::move(args);
    return make_node(std::move(n));
  }

  // A load of the stage that computes the reduction `r`, at the variables it uses.
  Expr stage_load(const Expr& r) {
    for (const auto& [seen, load] : done_)
      if (same_expr(seen, r)) return load;
    std::set<std::string> pure, reduction, bound;
    free_vars(r, pure, reduction, bound);
    const std::string op = reduce_op_name(r->reduce_op);
    const std::string name = stage_ + "_" + op + std::to_string(counts_[op]++);
    std::vector<Var> vars;
    std::vector<Expr> at;
    for (const auto& v : vars_)
      if (pure.count(v.name())) {
        vars.push_back(v);
        at.push_back(make_var(v.name()));
      }
    std::map<std::string, Expr> as_pure;
    for (const auto& rv : enclosing_)
      if (reduction.count(rv.name)) {
        vars.emplace_back(rv.name, extent_of(rv));
        at.push_back(make_var(rv.name, true));
        as_pure[rv.name] = make_var(rv.name);
      }
    if (vars.empty()) {
      vars.emplace_back(name + "_o", make_int(1));
      at.push_back(Expr(0));
    }
    Expr body = rewrite(r, [&](const Expr& x) {
      if (x->op == ExprOp::Var && x->is_reduction_var)
        if (auto it = as_pure.find(x->name); it != as_pure.end()) return it->second;
      return x;
    });
    Expr load = compute(name, vars, body).at(at);
    done_.emplace_back(r, load);
    return load;
  }

  std::string stage_;
  const std::vector<Var>& vars_;
  std::vector<ReductionVar> enclosing_;  // reduction variables in scope, outermost first
  std::map<std::string, int> counts_;
  std::vector<std::pair<Expr, Expr>> done_;  // reduction -> the load that replaces it
};

const ExprNode* guarded_reduction(const Expr& e, bool guarded, bool top) {
  if (!e.defined()) return nullptr;
  if (e->op == ExprOp::Reduce && !top && guarded) return e.get();
  for (size_t i = 0; i < e->args.size(); ++i) {
    bool lazy = (e->op == ExprOp::Select && i > 0) || ((e->op == ExprOp::And || e->op == ExprOp::Or) && i == 1);
    if (const ExprNode* r = guarded_reduction(e->args[i], guarded || lazy, false)) return r;
  }
  return nullptr;
}

}  // namespace

std::string reduction_split_refusal(const Expr& body, const ExprNode** site) {
  const ExprNode* r = guarded_reduction(body, false, true);
  if (site) *site = r;
  if (!r) return "";
  return "The reduction '" + to_string(make_node(*r)) +
         "' is in a branch of select (or on the right of && or ||), where the condition decides whether it is "
         "computed; as a stage of its own it would be computed, and its inputs read, at every point.";
}

Expr split_nested_reductions(const std::string& stage, const std::vector<Var>& vars, const Expr& body) {
  std::string why = reduction_split_refusal(body);
  if (!why.empty())
    fail("nested-reduction", "Stage '" + stage + "' cannot be split into stages: " + why,
         "Define the reduction as its own stage with compute() over the points where it is valid, and load that "
         "stage inside the select.");
  return Splitter(stage, vars).split(body);
}

}  // namespace cusched
