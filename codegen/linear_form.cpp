#include "codegen/linear_form.h"

namespace cusched {

Expr LinearForm::to_expr() const {
  Expr e;
  DType t = DType::i32;
  for (const auto& [v, c] : coeff) {
    if (c == 0) continue;
    auto it = atoms.find(v);
    Expr base = it == atoms.end() ? make_var(v) : it->second;
    if (base.type() == DType::i64) t = DType::i64;
    Expr term = c == 1 ? base : base * make_int(c, base.type());
    e = e.defined() ? e + term : term;
  }
  if (!e.defined()) return make_int(constant, t);
  if (constant != 0) e = e + make_int(constant, e.type());
  return e;
}

static void add_scaled(LinearForm& into, const LinearForm& f, int64_t k) {
  for (const auto& [v, c] : f.coeff) into.coeff[v] += k * c;
  into.constant += k * f.constant;
  into.atoms.insert(f.atoms.begin(), f.atoms.end());
}

std::optional<LinearForm> linear_form(const Expr& e, bool opaque_terms) {
  if (!e.defined()) return std::nullopt;
  const ExprNode& n = *e;
  if (dtype_is_float(n.type) || n.type == DType::boolean) return std::nullopt;
  auto opaque = [&]() -> std::optional<LinearForm> {
    if (!opaque_terms) return std::nullopt;
    LinearForm f;
    std::string key = "(" + to_string(e) + ")";
    f.coeff[key] = 1;
    f.atoms[key] = e;
    return f;
  };
  LinearForm f;
  switch (n.op) {
    case ExprOp::IntImm:
      f.constant = n.ival;
      return f;
    case ExprOp::Var:
      f.coeff[n.name] = 1;
      return f;
    case ExprOp::Cast:
      if (opaque_terms || dtype_is_float(n.args[0].type())) return opaque();
      return linear_form(n.args[0], false);
    case ExprOp::Neg: {
      auto a = linear_form(n.args[0], opaque_terms);
      if (!a) return std::nullopt;
      add_scaled(f, *a, -1);
      return f;
    }
    case ExprOp::Add:
    case ExprOp::Sub: {
      auto a = linear_form(n.args[0], opaque_terms), b = linear_form(n.args[1], opaque_terms);
      if (!a || !b) return std::nullopt;
      add_scaled(f, *a, 1);
      add_scaled(f, *b, n.op == ExprOp::Add ? 1 : -1);
      return f;
    }
    case ExprOp::Mul: {
      auto a = linear_form(n.args[0], opaque_terms), b = linear_form(n.args[1], opaque_terms);
      if (a && a->coeff.empty() && b) {
        add_scaled(f, *b, a->constant);
        return f;
      }
      if (b && b->coeff.empty() && a) {
        add_scaled(f, *a, b->constant);
        return f;
      }
      return opaque();
    }
    default:
      return opaque();
  }
}

}  // namespace cusched
