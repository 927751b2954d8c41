// Cooperative copies spread `units` over the block's threads as a loop over v with the
// guard `v * threads + tid < units`. Once the block size is known, a guard that every
// (v, tid) of the loop satisfies (extent * threads <= units) is dropped, so that the
// copies are issued without a branch each.
#include "codegen/linear_form.h"
#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"

namespace cusched {

namespace {

// Whether `cond` is `var * threads + tid < units` with extent * threads <= units.
bool covered(const Expr& cond, const std::string& var, int64_t extent, int64_t threads) {
  if (cond->op != ExprOp::LT) return false;
  int64_t units = 0;
  if (!is_const_int(simplify(cond->args[1]), &units)) return false;
  auto f = linear_form(cond->args[0]);
  if (!f || f->constant != 0 || f->coeff.size() != 2) return false;
  auto v = f->coeff.find(var), t = f->coeff.find("tid");
  return v != f->coeff.end() && t != f->coeff.end() && v->second == threads && t->second == 1 &&
         extent * threads <= units;
}

// `cond` without its covered conjuncts (undefined when none is left).
Expr without_covered(const Expr& cond, const std::string& var, int64_t extent, int64_t threads) {
  if (covered(cond, var, extent, threads)) return Expr();
  if (cond->op != ExprOp::And) return cond;
  Expr a = without_covered(cond->args[0], var, extent, threads),
       b = without_covered(cond->args[1], var, extent, threads);
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a && b;
}

Stmt drop(const Stmt& s, int64_t threads) {
  auto n = std::make_shared<StmtNode>(*s);
  for (auto& c : n->body) c = drop(c, threads);
  int64_t extent = 0, min = 0;
  if (n->kind != StmtKind::For || !is_const_int(simplify(n->extent), &extent) ||
      !is_const_int(simplify(n->min), &min) || min != 0)
    return n;
  const Stmt& body = n->body[0];
  if (body->kind != StmtKind::If || body->body.size() != 1) return n;
  Expr rest = without_covered(body->cond, n->var, extent, threads);
  if (rest.get() == body->cond.get()) return n;
  n->body[0] = rest.defined() ? make_if(rest, body->body[0]) : body->body[0];
  return n;
}

}  // namespace

void drop_covered_copy_guards(Kernel& k) { k.body = drop(k.body, k.block[0] * k.block[1] * k.block[2]); }

}  // namespace cusched
