#include "codegen/passes/affine.h"

namespace cusched {

Expr Affine::to_expr() const {
  Expr e;
  for (const auto& [v, c] : coeff) {
    if (c == 0) continue;
    Expr term = c == 1 ? make_var(v) : make_var(v) * make_int(c);
    e = e.defined() ? e + term : term;
  }
  if (!e.defined()) return make_int(constant);
  if (constant != 0) e = e + make_int(constant);
  return e;
}

static Affine scale(Affine a, int64_t k) {
  for (auto& [v, c] : a.coeff) c *= k;
  a.constant *= k;
  return a;
}

static Affine add(Affine a, const Affine& b, int64_t sign) {
  for (const auto& [v, c] : b.coeff) a.coeff[v] += sign * c;
  a.constant += sign * b.constant;
  return a;
}

std::optional<Affine> affine_form(const Expr& e) {
  if (!e.defined()) return std::nullopt;
  const ExprNode& n = *e;
  switch (n.op) {
    case ExprOp::IntImm: {
      Affine a;
      a.constant = n.ival;
      return a;
    }
    case ExprOp::Var: {
      Affine a;
      a.coeff[n.name] = 1;
      return a;
    }
    case ExprOp::Cast:
      if (dtype_is_float(n.type)) return std::nullopt;
      return affine_form(n.args[0]);
    case ExprOp::Add:
    case ExprOp::Sub: {
      auto a = affine_form(n.args[0]), b = affine_form(n.args[1]);
      if (!a || !b) return std::nullopt;
      return add(*a, *b, n.op == ExprOp::Add ? 1 : -1);
    }
    case ExprOp::Mul: {
      auto a = affine_form(n.args[0]), b = affine_form(n.args[1]);
      if (!a || !b) return std::nullopt;
      if (a->coeff.empty()) return scale(*b, a->constant);
      if (b->coeff.empty()) return scale(*a, b->constant);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep) {
  auto a = affine_form(e);
  if (!a) return std::nullopt;
  IndexRange r;
  Affine fixed;
  fixed.constant = a->constant;
  int64_t span = 0;
  for (const auto& [v, c] : a->coeff) {
    auto it = sweep.find(v);
    if (it == sweep.end()) {
      if (c) fixed.coeff[v] = c;
      continue;
    }
    int64_t hi = c * (it->second - 1);
    if (hi < 0) fixed.constant += hi;  // negative coefficient: the minimum is at the top
    span += hi < 0 ? -hi : hi;
  }
  r.min_form = fixed;
  r.min = fixed.to_expr();
  r.extent = span + 1;
  return r;
}

}  // namespace cusched
