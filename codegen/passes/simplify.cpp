#include "codegen/passes/simplify.h"

#include "codegen/linear_form.h"
#include "dsl/expr_substitute.h"

namespace cusched {

static bool is_int(const Expr& e, int64_t v) {
  int64_t x;
  return is_const_int(e, &x) && x == v;
}

// Whether the opaque term `key` of `f` is a division or remainder (`op`) by a constant
// c != 0 with a nonzero coefficient: then its coefficient (*k) and c (*c).
static bool constant_divisor_term(const LinearForm& f, const std::string& key, const Expr& atom, ExprOp op, int64_t* k,
                                  int64_t* c) {
  auto it = f.coeff.find(key);
  *k = it == f.coeff.end() ? 0 : it->second;
  return atom->op == op && *k != 0 && is_const_int(atom->args[1], c) && *c != 0;
}

// k * (x % c) + k * c * (x / c) is k * x for every integer x and constant c != 0 (C's
// truncating division and remainder satisfy (x / c) * c + x % c == x). Folds each such
// pair of opaque terms of `f` back into x's own terms; true when one was folded.
static bool fold_quotient_remainder_pairs(LinearForm& f) {
  for (const auto& [mod_key, mod] : f.atoms) {
    int64_t k, c;
    if (!constant_divisor_term(f, mod_key, mod, ExprOp::Mod, &k, &c)) continue;
    const std::string dividend = to_string(mod->args[0]);
    for (const auto& [div_key, div] : f.atoms) {
      int64_t kd, d;
      if (!constant_divisor_term(f, div_key, div, ExprOp::Div, &kd, &d) || d != c || kd != k * c ||
          to_string(div->args[0]) != dividend)
        continue;
      auto x = linear_form(mod->args[0], true);
      if (!x) continue;
      f.coeff.erase(mod_key);
      f.coeff.erase(div_key);
      for (const auto& [v, xc] : x->coeff) f.coeff[v] += k * xc;
      f.constant += k * x->constant;
      f.atoms.insert(x->atoms.begin(), x->atoms.end());
      return true;
    }
  }
  return false;
}

// k * (x % a) + k * a * ((x / a) % b) is k * (x % (a * b)) for every integer x and
// constants a, b != 0 (with C's truncating division: x = q * a + r and q = q2 * b + r2,
// r and r2 of x's sign, so r2 * a + r is x's remainder by a * b). Folds one such pair of
// opaque terms of `f` into one; true when one was folded.
static bool fold_nested_remainders(LinearForm& f) {
  for (const auto& [low_key, low] : f.atoms) {
    int64_t k, a;
    if (!constant_divisor_term(f, low_key, low, ExprOp::Mod, &k, &a)) continue;
    const std::string dividend = to_string(low->args[0]);
    for (const auto& [high_key, high] : f.atoms) {
      int64_t kh, b, d;
      if (!constant_divisor_term(f, high_key, high, ExprOp::Mod, &kh, &b) || kh != k * a) continue;
      const Expr& q = high->args[0];
      if (q->op != ExprOp::Div || !is_const_int(q->args[1], &d) || d != a || to_string(q->args[0]) != dividend)
        continue;
      const Expr merged = make_binary(ExprOp::Mod, low->args[0], make_int(a * b, low.type()));
      const std::string key = "(" + to_string(merged) + ")";
      f.coeff.erase(low_key);
      f.coeff.erase(high_key);
      f.coeff[key] += k;
      f.atoms[key] = merged;
      return true;
    }
  }
  return false;
}

Expr simplify(const Expr& e) {
  return rewrite(e, [](const Expr& x) -> Expr {
    const ExprNode& n = *x;
    if (dtype_is_float(n.type) || n.type == DType::boolean) return x;
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
      case ExprOp::BitXor:
        if (ca && cb) return make_int(a ^ b, t);
        break;
      default:
        break;
    }
    // Collect sums into one canonical linear form over variables and opaque terms
    // (divisions, moduli, loads), so that (a + t) - a becomes t.
    if (n.op == ExprOp::Add || n.op == ExprOp::Sub || n.op == ExprOp::Mul) {
      if (auto f = linear_form(x, true)) {
        while (fold_nested_remainders(*f) || fold_quotient_remainder_pairs(*f)) {}
        Expr c = f->to_expr();
        if (c.type() == x.type()) return c;
      }
    }
    return x;
  });
}

}  // namespace cusched
