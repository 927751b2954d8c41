// Integer divisions and moduli by a positive constant d, rewritten through the ranges of
// the kernel's indices (loop variables, the thread index, thread and block indices).
// The dividend is taken as a linear form M + R, M the terms whose coefficients (and the
// part of the constant) are multiples of d. When both parts are never negative,
//   (M + R) / d = M / d + R / d   and   (M + R) % d = R % d,
// and R / d, R % d fold to 0 and R when R < d. A cooperative copy's
// (v * 256 + tid) / 8 becomes v * 32 + tid / 8 and its (v * 256 + tid) % 8 becomes tid % 8,
// so the compiler sees one thread-dependent base plus constant offsets instead of a
// division per copy. Where that does not apply, the dividend may still be H + L with H's
// coefficients multiples of a divisor k of d and 0 <= L < k (vector lanes: t * 4 + v):
//   (H + L) / d = (H / k) / (d / k)   and   (H + L) % d = k * ((H / k) % (d / k)) + L,
// so a lane index keeps its lane variable outside every division. Integer comparisons that
// the ranges decide (a padded load's bounds check of a coordinate that a fused grid's
// division already keeps in range) become true or false, and the &&, ||, ! and selects
// over them fold. Values are unchanged: each rewrite applies only where it is exact for
// C's truncating division.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "codegen/index_ranges.h"
#include "codegen/linear_form.h"
#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"
#include "dsl/expr_substitute.h"

namespace cusched {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;

// Inclusive; hi is kUnbounded when not known.
using Range = IntInterval;
using Ranges = VarIntervals;

int64_t clamp_add(int64_t a, int64_t b) { return std::clamp(a + b, -kUnbounded, kUnbounded); }

int64_t clamp_mul(int64_t a, int64_t c) {
  if (a == 0 || c == 0) return 0;
  if (std::abs(a) >= kUnbounded / std::abs(c)) return (a > 0) == (c > 0) ? kUnbounded : -kUnbounded;
  return a * c;
}

Range scaled(Range r, int64_t c) {
  const int64_t a = clamp_mul(r.lo, c), b = clamp_mul(r.hi, c);
  return {std::min(a, b), std::max(a, b)};
}

std::optional<Range> range_of(const Expr& e, const Ranges& known);

// The range of a linear form's terms (and its constant), when every term has one.
std::optional<Range> range_of(const LinearForm& f, const Ranges& known) {
  Range r{f.constant, f.constant};
  for (const auto& [key, c] : f.coeff) {
    if (c == 0) continue;
    auto atom = f.atoms.find(key);
    std::optional<Range> t;
    if (atom != f.atoms.end()) {
      t = range_of(atom->second, known);
    } else if (auto it = known.find(key); it != known.end()) {
      t = it->second;
    }
    if (!t) return std::nullopt;
    const Range s = scaled(*t, c);
    r = {clamp_add(r.lo, s.lo), clamp_add(r.hi, s.hi)};
  }
  return r;
}

std::optional<Range> range_of(const Expr& e, const Ranges& known) {
  if (!e.defined() || dtype_is_float(e.type()) || e.type() == DType::boolean) return std::nullopt;
  const ExprNode& n = *e;
  int64_t d = 0;
  switch (n.op) {
    case ExprOp::Div:
    case ExprOp::Mod: {
      if (!is_const_int(n.args[1], &d) || d <= 0) return std::nullopt;
      auto x = range_of(n.args[0], known);
      if (!x || x->lo < 0) return std::nullopt;
      if (n.op == ExprOp::Div) return Range{x->lo / d, x->hi / d};
      return x->hi < d ? *x : Range{0, d - 1};
    }
    case ExprOp::BitXor: {
      auto a = range_of(n.args[0], known), b = range_of(n.args[1], known);
      if (!a || !b || a->lo < 0 || b->lo < 0 || a->hi >= kUnbounded || b->hi >= kUnbounded) return std::nullopt;
      int64_t mask = 1;
      while (mask <= std::max(a->hi, b->hi)) mask <<= 1;
      return Range{0, mask - 1};
    }
    case ExprOp::Min:
    case ExprOp::Max: {
      auto a = range_of(n.args[0], known), b = range_of(n.args[1], known);
      if (!a || !b) return std::nullopt;
      if (n.op == ExprOp::Min) return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    case ExprOp::Cast:
      return range_of(n.args[0], known);
    default:
      break;
  }
  auto f = linear_form(e, true);
  if (!f) return std::nullopt;
  // A lone opaque term: its own range where `e` only wraps it (0 + t), else (`e` is the
  // term) nothing smaller to take it from.
  if (f->constant == 0 && f->coeff.size() == 1 && f->coeff.begin()->second == 1 &&
      f->atoms.count(f->coeff.begin()->first)) {
    const Expr& term = f->atoms.at(f->coeff.begin()->first);
    return term.get() != e.get() && term->op != e->op ? range_of(term, known) : std::nullopt;
  }
  return range_of(*f, known);
}

// x / d or x % d as H / k / (d / k) or k * (H / k % (d / k)) + L, for the largest divisor k
// of d (below d) that is the greatest common divisor of d and a coefficient of `f` such
// that the terms whose coefficients k divides (H) are never negative and the others with
// the constant's remainder (L) stay in [0, k); undefined where no such k exists.
Expr divide_by_lanes(const LinearForm& f, int64_t d, bool modulus, const Ranges& known, DType type) {
  std::set<int64_t> divisors;
  for (const auto& [key, c] : f.coeff)
    if (c != 0) divisors.insert(std::gcd(std::abs(c), d));
  for (auto k = divisors.rbegin(); k != divisors.rend(); ++k) {
    if (*k <= 1 || *k >= d) continue;
    LinearForm high, low;
    high.atoms = low.atoms = f.atoms;
    for (const auto& [key, c] : f.coeff)
      if (c != 0) (c % *k == 0 ? high : low).coeff[key] = c;
    if (f.constant < 0) continue;
    low.constant = f.constant % *k;
    high.constant = f.constant - low.constant;
    auto rh = range_of(high, known), rl = range_of(low, known);
    if (!rh || !rl || rh->lo < 0 || rl->lo < 0 || rl->hi >= *k) continue;
    for (auto& [key, c] : high.coeff) c /= *k;
    high.constant /= *k;
    const Expr h = high.to_expr(), outer = make_int(d / *k, type);
    if (!modulus) return simplify(h / outer);
    return simplify(make_int(*k, type) * (h % outer) + low.to_expr());
  }
  return Expr();
}

// x / d or x % d through the ranges, or undefined when no exact rewrite applies.
Expr divide(const Expr& x, int64_t d, bool modulus, const Ranges& known) {
  auto f = linear_form(x, true);
  if (!f) return Expr();
  LinearForm multiple, rest;
  multiple.atoms = rest.atoms = f->atoms;
  for (const auto& [key, c] : f->coeff) {
    if (c == 0) continue;
    (c % d == 0 ? multiple : rest).coeff[key] = c;
  }
  // The constant's multiple of d goes with M while the rest stays non-negative.
  const int64_t c = f->constant;
  multiple.constant = c >= 0 ? c / d * d : 0;
  rest.constant = c - multiple.constant;
  auto rm = range_of(multiple, known), rr = range_of(rest, known);
  if (!rm || !rr || rm->lo < 0 || rr->lo < 0) return Expr();
  const bool has_multiple = multiple.constant != 0 || !multiple.coeff.empty();
  const bool rest_below_d = rr->hi < d;
  if (!has_multiple && !rest_below_d) return divide_by_lanes(*f, d, modulus, known, x.type());
  const Expr r = rest.to_expr();
  // R / d or R % d where R reaches d: through its lanes where it has them.
  auto rest_part = [&](bool mod) {
    const Expr lanes = divide_by_lanes(rest, d, mod, known, x.type());
    if (lanes.defined()) return lanes;
    return mod ? r % make_int(d, x.type()) : r / make_int(d, x.type());
  };
  if (modulus) return rest_below_d ? r : rest_part(true);
  LinearForm quotient = multiple;
  for (auto& [key, coeff] : quotient.coeff) coeff /= d;
  quotient.constant /= d;
  Expr q = quotient.to_expr();
  if (!rest_below_d) q = q + rest_part(false);
  return simplify(q);
}

// An integer comparison a OP b that the range of a - b decides, as true or false; else
// undefined.
Expr decided_comparison(const ExprNode& x, const Ranges& known) {
  if (x.args.size() != 2 || dtype_is_float(x.args[0].type()) || dtype_is_float(x.args[1].type()) ||
      x.args[0].type() == DType::boolean || x.args[1].type() == DType::boolean)
    return Expr();
  // The range of a - b as one form (where a and b share terms), else from a's and b's.
  std::optional<Range> r = range_of(x.args[0] - x.args[1], known);
  if (!r) {
    const auto ra = range_of(x.args[0], known), rb = range_of(x.args[1], known);
    if (ra && rb) r = Range{clamp_add(ra->lo, -rb->hi), clamp_add(ra->hi, -rb->lo)};
  }
  if (!r || r->lo <= -kUnbounded || r->hi >= kUnbounded) return Expr();
  switch (x.op) {
    case ExprOp::LT:
      return r->hi < 0 ? make_bool(true) : r->lo >= 0 ? make_bool(false) : Expr();
    case ExprOp::LE:
      return r->hi <= 0 ? make_bool(true) : r->lo > 0 ? make_bool(false) : Expr();
    case ExprOp::GT:
      return r->lo > 0 ? make_bool(true) : r->hi <= 0 ? make_bool(false) : Expr();
    case ExprOp::GE:
      return r->lo >= 0 ? make_bool(true) : r->hi < 0 ? make_bool(false) : Expr();
    default:
      return Expr();
  }
}

// `a && b`, `a || b`, `!a` and `c ? a : b` with a constant operand, folded.
Expr folded_logic(const Expr& x) {
  auto constant = [](const Expr& e, bool* v) {
    if (e->op != ExprOp::BoolImm) return false;
    *v = e->ival != 0;
    return true;
  };
  bool a = false, b = false;
  switch (x->op) {
    case ExprOp::And:
      if (constant(x->args[0], &a)) return a ? x->args[1] : make_bool(false);
      if (constant(x->args[1], &b)) return b ? x->args[0] : make_bool(false);
      return x;
    case ExprOp::Or:
      if (constant(x->args[0], &a)) return a ? make_bool(true) : x->args[1];
      if (constant(x->args[1], &b)) return b ? make_bool(true) : x->args[0];
      return x;
    case ExprOp::Not:
      return constant(x->args[0], &a) ? make_bool(!a) : x;
    case ExprOp::Select:
      return constant(x->args[0], &a) ? x->args[a ? 1 : 2] : x;
    default:
      return x;
  }
}

Expr rewrite_divisions(const Expr& e, const Ranges& known) {
  return rewrite(e, [&](const Expr& x) -> Expr {
    if (x->op == ExprOp::LT || x->op == ExprOp::LE || x->op == ExprOp::GT || x->op == ExprOp::GE) {
      const Expr decided = decided_comparison(*x, known);
      return decided.defined() ? decided : x;
    }
    if (x->op == ExprOp::And || x->op == ExprOp::Or || x->op == ExprOp::Not || x->op == ExprOp::Select)
      return folded_logic(x);
    int64_t d = 0;
    if ((x->op != ExprOp::Div && x->op != ExprOp::Mod) || !is_const_int(x->args[1], &d) || d <= 0) return x;
    if (dtype_is_float(x.type())) return x;
    Expr r = divide(x->args[0], d, x->op == ExprOp::Mod, known);
    return r.defined() && r.type() == x.type() ? r : x;
  });
}

Stmt simplify_in(const Stmt& s, Ranges known) {
  auto n = std::make_shared<StmtNode>(*s);
  auto own = [&](Expr& e) {
    if (e.defined()) e = rewrite_divisions(e, known);
  };
  own(n->min);
  own(n->extent);
  own(n->index);
  own(n->value);
  own(n->cond);
  own(n->barrier_index);
  for (auto& o : n->operands) own(o);
  if (n->kind == StmtKind::For) {
    int64_t lo = 0, extent = 0;
    const bool constant_min = is_const_int(simplify(n->min), &lo);
    if (constant_min && is_const_int(simplify(n->extent), &extent) && extent > 0)
      known[n->var] = {lo, lo + extent - 1};
    else if (constant_min)
      known[n->var] = {lo, kUnbounded};
    else
      known.erase(n->var);
  }
  for (auto& c : n->body) c = simplify_in(c, known);
  return n;
}

}  // namespace

void simplify_divisions(Kernel& k) { k.body = simplify_in(k.body, launch_ranges(k)); }

}  // namespace cusched
