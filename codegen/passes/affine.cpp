#include "codegen/passes/affine.h"

#include <algorithm>

#include "dsl/expr_substitute.h"

namespace cusched {

namespace {

// The bounds of a division or modulus by a positive constant of a sweeping expression:
// the term's minimum (an expression of the fixed variables) and its largest offset from
// it. `x / d` is monotone in x, so over x's range [m, m + S] it takes values from m / d
// to at most m / d + ceil(S / d); `x % d` of a non-negative x lies in [0, d - 1]. Nullopt
// for any other term, or a modulus whose dividend may be negative (C's remainder).
struct TermBounds {
  Expr min;
  int64_t max_offset = 0;
};

// Whether `e` is non-negative for non-negative variables (loop indices): constants of at
// least 0, variables, and sums, products, divisions and moduli of such (a modulus or a
// division by a positive constant).
bool non_negative(const Expr& e) {
  switch (e->op) {
    case ExprOp::IntImm:
      return e->ival >= 0;
    case ExprOp::Var:
      return true;
    case ExprOp::Add:
    case ExprOp::Mul:
      return non_negative(e->args[0]) && non_negative(e->args[1]);
    case ExprOp::Div:
    case ExprOp::Mod:
      return non_negative(e->args[0]) && e->args[1]->op == ExprOp::IntImm && e->args[1]->ival > 0;
    case ExprOp::Cast:
      return !dtype_is_float(e->type) && non_negative(e->args[0]);
    default:
      return false;
  }
}

std::optional<TermBounds> sweeping_term_bounds(const Expr& atom, const std::map<std::string, int64_t>& sweep) {
  if ((atom->op != ExprOp::Div && atom->op != ExprOp::Mod) || atom->args.size() != 2 ||
      atom->args[1]->op != ExprOp::IntImm || atom->args[1]->ival <= 0)
    return std::nullopt;
  const int64_t d = atom->args[1]->ival;
  auto inner = index_range(atom->args[0], sweep);
  if (!inner) return std::nullopt;
  if (atom->op == ExprOp::Mod) {
    if (!non_negative(atom->args[0])) return std::nullopt;
    return TermBounds{make_int(0), d - 1};
  }
  const LinearForm& m = inner->min_form;
  const bool constant = std::all_of(m.coeff.begin(), m.coeff.end(), [](const auto& kv) { return kv.second == 0; });
  Expr lo = constant ? make_int(m.constant / d) : make_binary(ExprOp::Div, inner->min, make_int(d));
  return TermBounds{lo, (inner->extent - 1 + d - 1) / d};
}

// Adds k * e to `form` (e an integer expression of fixed variables).
void add_scaled(LinearForm& form, int64_t k, const Expr& e) {
  if (e->op == ExprOp::IntImm) {
    form.constant += k * e->ival;
    return;
  }
  const std::string key = "(" + to_string(e) + ")";
  form.coeff[key] += k;
  form.atoms[key] = e;
}

}  // namespace

std::optional<IndexRange> index_range(const Expr& e, const std::map<std::string, int64_t>& sweep,
                                      bool bound_sweeping_terms) {
  // Non-affine subterms (a division or modulus of a fused loop, say) that no sweeping
  // variable reaches are fixed values while the sweep runs: symbols of the minimum.
  // Those that a sweeping variable reaches are bounded by sweeping_term_bounds.
  auto a = linear_form(e);
  if (!a) a = linear_form(e, true);
  if (!a) return std::nullopt;
  LinearForm fixed;
  fixed.constant = a->constant;
  int64_t span = 0;
  for (const auto& [key, atom] : a->atoms) {
    auto c = a->coeff.find(key);
    if (c == a->coeff.end() || c->second == 0) continue;
    bool swept = false;
    for (const auto& [v, extent] : sweep) swept |= mentions_var(atom, v);
    if (!swept) {
      fixed.coeff[key] = c->second;
      fixed.atoms[key] = atom;
      continue;
    }
    if (!bound_sweeping_terms) return std::nullopt;
    auto b = sweeping_term_bounds(atom, sweep);
    if (!b) return std::nullopt;
    add_scaled(fixed, c->second, b->min);
    if (c->second < 0) fixed.constant += c->second * b->max_offset;  // the minimum is at the top
    span += (c->second < 0 ? -c->second : c->second) * b->max_offset;
  }
  IndexRange r;
  for (const auto& [v, c] : a->coeff) {
    if (a->atoms.count(v)) continue;
    auto it = sweep.find(v);
    if (it == sweep.end()) {
      if (c) fixed.coeff[v] += c;
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
