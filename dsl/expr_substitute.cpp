#include "dsl/expr_substitute.h"

#include <cmath>
#include <functional>
#include <limits>

namespace cusched {

Expr rewrite(const Expr& e, const std::function<Expr(const Expr&)>& f) {
  if (!e.defined()) return e;
  bool changed = false;
  std::vector<Expr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) {
    Expr r = rewrite(a, f);
    changed |= r.get() != a.get();
    args.push_back(std::move(r));
  }
  Expr base = e;
  if (changed) {
    ExprNode n = *e;
    n.args = std::move(args);
    base = make_node(std::move(n));
  }
  return f(base);
}

Expr substitute(const Expr& e, const std::map<std::string, Expr>& values) {
  return rewrite(e, [&](const Expr& x) {
    if (x->op == ExprOp::Var) {
      auto it = values.find(x->name);
      if (it != values.end()) return it->second;
    }
    return x;
  });
}

Expr reduction_identity(ReduceOp op, DType t) {
  bool fl = dtype_is_float(t);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Variance:  // the mean's; the sum of squared deviations and the count start at 0 too
      return fl ? make_float(0.0, t) : make_int(0, t);
    case ReduceOp::Product:
      return fl ? make_float(1.0, t) : make_int(1, t);
    case ReduceOp::Max:
    case ReduceOp::ArgMax:
    case ReduceOp::LogSumExp:  // the running maximum's identity; the sum starts at 0
      return fl ? make_float(-std::numeric_limits<double>::infinity(), t)
                : make_int(t == DType::i64 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min(),
                           t);
    case ReduceOp::Min:
    case ReduceOp::ArgMin:
      return fl ? make_float(std::numeric_limits<double>::infinity(), t)
                : make_int(t == DType::i64 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max(),
                           t);
  }
  return make_int(0, t);
}

bool loads_from(const Expr& e, const std::string& name) {
  if (!e.defined()) return false;
  if (e->op == ExprOp::Load && e->name == name) return true;
  for (const auto& a : e->args)
    if (loads_from(a, name)) return true;
  return false;
}

bool mentions_var(const Expr& e, const std::string& var) {
  if (!e.defined()) return false;
  if (e->op == ExprOp::Var && e->name == var) return true;
  for (const auto& a : e->args)
    if (mentions_var(a, var)) return true;
  return false;
}

}  // namespace cusched
