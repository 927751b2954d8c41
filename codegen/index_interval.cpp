#include "codegen/index_interval.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace cusched {
namespace {

using Range = std::optional<IntInterval>;
constexpr __int128 kMax64 = std::numeric_limits<int64_t>::max();
constexpr __int128 kMin64 = std::numeric_limits<int64_t>::min();

Range make_range(__int128 lo, __int128 hi) {
  if (lo < kMin64 || hi > kMax64) return std::nullopt;
  return IntInterval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

// The range of the corners' products, sums or quotients: the extremes of the four.
Range corners(__int128 a, __int128 b, __int128 c, __int128 d) {
  return make_range(std::min({a, b, c, d}), std::max({a, b, c, d}));
}

bool is_integer_type(DType t) { return t == DType::i32 || t == DType::i64 || t == DType::boolean; }

// The interval of every node of `e`, children first, in `memo` (nullopt: unbounded).
Range visit(const Expr& e, const VarIntervals& vars, std::map<const ExprNode*, Range>& memo) {
  const ExprNode& n = *e;
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  std::vector<Range> a;
  for (const auto& arg : n.args) a.push_back(visit(arg, vars, memo));
  auto all = [&] { return std::all_of(a.begin(), a.end(), [](const Range& r) { return r.has_value(); }); };
  Range r;
  switch (n.op) {
    case ExprOp::IntImm:
      r = IntInterval{n.ival, n.ival};
      break;
    case ExprOp::BoolImm:
    case ExprOp::EQ:
    case ExprOp::NE:
    case ExprOp::LT:
    case ExprOp::LE:
    case ExprOp::GT:
    case ExprOp::GE:
    case ExprOp::And:
    case ExprOp::Or:
    case ExprOp::Not:
      r = IntInterval{0, 1};
      break;
    case ExprOp::Var:
      if (auto v = vars.find(n.name); v != vars.end() && is_integer_type(n.type)) r = v->second;
      break;
    case ExprOp::Add:
      if (all()) r = make_range(__int128(a[0]->lo) + a[1]->lo, __int128(a[0]->hi) + a[1]->hi);
      break;
    case ExprOp::Sub:
      if (all()) r = make_range(__int128(a[0]->lo) - a[1]->hi, __int128(a[0]->hi) - a[1]->lo);
      break;
    case ExprOp::Neg:
      if (all()) r = make_range(-__int128(a[0]->hi), -__int128(a[0]->lo));
      break;
    case ExprOp::Mul:
      if (all())
        r = corners(__int128(a[0]->lo) * a[1]->lo, __int128(a[0]->lo) * a[1]->hi, __int128(a[0]->hi) * a[1]->lo,
                    __int128(a[0]->hi) * a[1]->hi);
      break;
    case ExprOp::Div:
      // Truncating division by a positive constant is monotone in the dividend.
      if (all() && a[1]->lo == a[1]->hi && a[1]->lo > 0) r = IntInterval{a[0]->lo / a[1]->lo, a[0]->hi / a[1]->lo};
      break;
    case ExprOp::Mod:
      // C's remainder by a positive constant d: in [0, d - 1] for a non-negative dividend
      // (the dividend itself where it is smaller), else in [-(d - 1), d - 1].
      if (all() && a[1]->lo == a[1]->hi && a[1]->lo > 0) {
        const int64_t d = a[1]->lo;
        if (a[0]->lo >= 0)
          r = IntInterval{a[0]->hi < d ? a[0]->lo : 0, std::min(a[0]->hi, d - 1)};
        else
          r = IntInterval{-(d - 1), d - 1};
      }
      break;
    case ExprOp::Min:
      if (all()) r = IntInterval{std::min(a[0]->lo, a[1]->lo), std::min(a[0]->hi, a[1]->hi)};
      break;
    case ExprOp::Max:
      if (all()) r = IntInterval{std::max(a[0]->lo, a[1]->lo), std::max(a[0]->hi, a[1]->hi)};
      break;
    case ExprOp::Select:
      if (a[1] && a[2]) r = IntInterval{std::min(a[1]->lo, a[2]->lo), std::max(a[1]->hi, a[2]->hi)};
      break;
    case ExprOp::BitXor:
      // Of non-negative operands: below the power of two past the larger.
      if (all() && a[0]->lo >= 0 && a[1]->lo >= 0) {
        int64_t top = 1;
        while (top <= std::max(a[0]->hi, a[1]->hi) && top < (int64_t{1} << 62)) top <<= 1;
        r = IntInterval{0, top - 1};
      }
      break;
    case ExprOp::Cast:
      if (is_integer_type(n.type) && !dtype_is_float(n.args[0].type())) r = a[0];
      break;
    default:
      break;
  }
  if (!is_integer_type(n.type)) r = std::nullopt;
  memo[&n] = r;
  return r;
}

bool within_int32(const Range& r) {
  return r && r->lo >= std::numeric_limits<int32_t>::min() && r->hi <= std::numeric_limits<int32_t>::max();
}

// Whether `e` and all its subexpressions fit int32; the nodes that do go into `out`.
bool collect(const Expr& e, const std::map<const ExprNode*, Range>& memo, std::set<const ExprNode*>& out) {
  bool fits = within_int32(memo.at(e.get()));
  for (const auto& arg : e->args) fits = collect(arg, memo, out) && fits;
  if (fits) out.insert(e.get());
  return fits;
}

}  // namespace

std::optional<IntInterval> int_interval(const Expr& e, const VarIntervals& vars) {
  std::map<const ExprNode*, Range> memo;
  return visit(e, vars, memo);
}

std::set<const ExprNode*> int32_subtrees(const Expr& e, const VarIntervals& vars) {
  std::map<const ExprNode*, Range> memo;
  visit(e, vars, memo);
  std::set<const ExprNode*> out;
  collect(e, memo, out);
  return out;
}

}  // namespace cusched
