#include "dsl/expr_equal.h"

#include <cstring>

namespace cusched {

namespace {

bool differ(std::string* why, const std::string& what, const Expr& a, const Expr& b) {
  if (why) *why = what + " differs: " + to_string(a) + " vs " + to_string(b);
  return false;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_tensor(const TensorDef& a, const TensorDef& b, std::string* why) {
  if (a.name != b.name || a.dtype != b.dtype || a.shape.size() != b.shape.size()) {
    if (why) *why = "tensor " + a.name + " differs from " + b.name;
    return false;
  }
  for (size_t i = 0; i < a.shape.size(); ++i)
    if (!same_expr(a.shape[i], b.shape[i], why)) return false;
  return true;
}

}  // namespace

bool same_expr(const Expr& a, const Expr& b, std::string* why) {
  if (a.defined() != b.defined()) return differ(why, "definedness", a, b);
  if (!a.defined()) return true;
  const ExprNode &x = *a, &y = *b;
  if (x.op != y.op) return differ(why, "operation", a, b);
  if (x.type != y.type) return differ(why, "type", a, b);
  if (x.ival != y.ival || !same_bits(x.fval, y.fval)) return differ(why, "value", a, b);
  if (x.name != y.name) return differ(why, "name", a, b);
  if (x.reduce_op != y.reduce_op) return differ(why, "reduction", a, b);
  if (x.is_reduction_var != y.is_reduction_var) return differ(why, "reduction-variable flag", a, b);
  if (x.weak != y.weak) return differ(why, "weak flag", a, b);
  if (x.args.size() != y.args.size() || x.rvars.size() != y.rvars.size()) return differ(why, "arity", a, b);
  for (size_t i = 0; i < x.rvars.size(); ++i) {
    if (x.rvars[i].name != y.rvars[i].name || x.rvars[i].extent != y.rvars[i].extent)
      return differ(why, "reduction domain", a, b);
    if (!same_expr(x.rvars[i].extent_expr, y.rvars[i].extent_expr, why)) return false;
  }
  if (static_cast<bool>(x.func) != static_cast<bool>(y.func) ||
      static_cast<bool>(x.tensor) != static_cast<bool>(y.tensor))
    return differ(why, "load target", a, b);
  if (x.func && x.func != y.func && !same_stage(*x.func, *y.func, why)) return false;
  if (x.tensor && x.tensor != y.tensor && !same_tensor(*x.tensor, *y.tensor, why)) return false;
  for (size_t i = 0; i < x.args.size(); ++i)
    if (!same_expr(x.args[i], y.args[i], why)) return false;
  return true;
}

bool same_stage(const FuncDef& a, const FuncDef& b, std::string* why) {
  if (a.name != b.name || a.vars != b.vars || a.dtype != b.dtype || a.extents.size() != b.extents.size()) {
    if (why) *why = "stage " + a.name + " differs from " + b.name + " in its name, domain or type";
    return false;
  }
  for (size_t i = 0; i < a.extents.size(); ++i)
    if (!same_expr(a.extents[i], b.extents[i], why)) return false;
  return same_expr(a.body, b.body, why);
}

}  // namespace cusched
