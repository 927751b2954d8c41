#include "codegen/passes/simplify.h"

#include "codegen/passes/affine.h"
#include "dsl/expr_substitute.h"

#include <map>

namespace cusched {

namespace {

// Like affine_form, but any integer subterm that is not a sum or a product by a
// constant becomes an opaque atom named by its text.
std::optional<Affine> linear_form(const Expr& e, std::map<std::string, Expr>& atoms) {
  const ExprNode& n = *e;
  auto atom = [&]() -> std::optional<Affine> {
    if (dtype_is_float(n.type) || n.type == DType::boolean) return std::nullopt;
    std::string key = "@" + to_string(e);
    atoms[key] = e;
    Affine a;
    a.coeff[key] = 1;
    return a;
  };
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
    case ExprOp::Add:
    case ExprOp::Sub: {
      auto a = linear_form(n.args[0], atoms), b = linear_form(n.args[1], atoms);
      if (!a || !b) return std::nullopt;
      for (const auto& [v, c] : b->coeff) a->coeff[v] += n.op == ExprOp::Add ? c : -c;
      a->constant += n.op == ExprOp::Add ? b->constant : -b->constant;
      return a;
    }
    case ExprOp::Mul: {
      int64_t k;
      Expr other;
      if (is_const_int(n.args[0], &k)) other = n.args[1];
      else if (is_const_int(n.args[1], &k)) other = n.args[0];
      else return atom();
      auto a = linear_form(other, atoms);
      if (!a) return std::nullopt;
      for (auto& [v, c] : a->coeff) c *= k;
      a->constant *= k;
      return a;
    }
    default: return atom();
  }
}

Expr from_linear(const Affine& f, const std::map<std::string, Expr>& atoms) {
  Expr e;
  DType t = DType::i32;
  for (const auto& [v, c] : f.coeff) {
    if (c == 0) continue;
    auto it = atoms.find(v);
    Expr base = it == atoms.end() ? make_var(v) : it->second;
    if (it != atoms.end() && it->second.type() == DType::i64) t = DType::i64;
    Expr term = c == 1 ? base : base * make_int(c, base.type());
    e = e.defined() ? e + term : term;
  }
  if (!e.defined()) return make_int(f.constant, t);
  if (f.constant != 0) e = e + make_int(f.constant, e.type());
  return e;
}

}  // namespace

static bool is_int(const Expr& e, int64_t v) {
  int64_t x;
  return is_const_int(e, &x) && x == v;
}

Expr simplify(const Expr& e) {
  return rewrite(e, [](const Expr& x) -> Expr {
    const ExprNode& n = *x;
    if (dtype_is_float(n.type) || n.type == DType::boolean) {
      if (n.op == ExprOp::LT || n.op == ExprOp::LE || n.op == ExprOp::GT || n.op == ExprOp::GE) return x;
      return x;
    }
    int64_t a, b;
    bool ca = n.args.size() > 0 && is_const_int(n.args[0], &a);
    bool cb = n.args.size() > 1 && is_const_int(n.args[1], &b);
    DType t = n.type;
    switch (n.op) {
      case ExprOp::Add:
        if (ca && cb) return make_int(a + b, t);
        if (is_int(n.args[0], 0)) return n.args[1];
        if (is_int(n.args[1], 0)) return n.args[0];
        break;
      case ExprOp::Sub:
        if (ca && cb) return make_int(a - b, t);
        if (is_int(n.args[1], 0)) return n.args[0];
        break;
      case ExprOp::Mul:
        if (ca && cb) return make_int(a * b, t);
        if (is_int(n.args[0], 1)) return n.args[1];
        if (is_int(n.args[1], 1)) return n.args[0];
        if (is_int(n.args[0], 0) || is_int(n.args[1], 0)) return make_int(0, t);
        break;
      case ExprOp::Div:
        if (ca && cb && b != 0) return make_int(a / b, t);
        if (is_int(n.args[1], 1)) return n.args[0];
        break;
      case ExprOp::Mod:
        if (ca && cb && b != 0) return make_int(a % b, t);
        if (is_int(n.args[1], 1)) return make_int(0, t);
        break;
      default: break;
    }
    // Collect sums into one canonical linear form over variables and opaque terms
    // (divisions, moduli, loads), so that (a + t) - a becomes t.
    if (n.op == ExprOp::Add || n.op == ExprOp::Sub || n.op == ExprOp::Mul) {
      std::map<std::string, Expr> atoms;
      if (auto f = linear_form(x, atoms)) {
        Expr c = from_linear(*f, atoms);
        if (c.type() == x.type()) return c;
      }
    }
    return x;
  });
}

}  // namespace cusched
