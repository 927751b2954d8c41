// int_interval and int32_subtrees (codegen/index_interval.h): every value an integer
// expression takes lies in its interval, and the int subtrees are exactly those whose
// values all fit.
#include "codegen/index_interval.h"

#include <random>

#include <gtest/gtest.h>

#include "tests/codegen/hand_built_ir.h"

namespace cusched {
namespace {

using test::v;

// The value of `e` in 64-bit C arithmetic (truncating division and remainder).
int64_t c_value(const Expr& e, const std::map<std::string, int64_t>& at) {
  const ExprNode& n = *e;
  auto arg = [&](int i) { return c_value(n.args[i], at); };
  switch (n.op) {
    case ExprOp::IntImm:
      return n.ival;
    case ExprOp::Var:
      return at.at(n.name);
    case ExprOp::Add:
      return arg(0) + arg(1);
    case ExprOp::Sub:
      return arg(0) - arg(1);
    case ExprOp::Mul:
      return arg(0) * arg(1);
    case ExprOp::Div:
      return arg(0) / arg(1);
    case ExprOp::Mod:
      return arg(0) % arg(1);
    case ExprOp::Min:
      return std::min(arg(0), arg(1));
    case ExprOp::Max:
      return std::max(arg(0), arg(1));
    case ExprOp::Neg:
      return -arg(0);
    case ExprOp::LT:
      return arg(0) < arg(1);
    case ExprOp::Select:
      return arg(0) ? arg(1) : arg(2);
    default:
      ADD_FAILURE() << "unexpected node " << to_string(e);
      return 0;
  }
}

// A random integer expression over a, b and c of the given depth.
Expr random_expr(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int64_t> constant(-40, 300);
  if (depth == 0) {
    switch (pick(rng) % 4) {
      case 0:
        return v("a");
      case 1:
        return v("b");
      case 2:
        return v("c");
      default:
        return make_int(constant(rng));
    }
  }
  Expr x = random_expr(rng, depth - 1), y = random_expr(rng, depth - 1);
  const int64_t d = std::uniform_int_distribution<int64_t>(1, 130)(rng);
  switch (pick(rng)) {
    case 0:
      return x + y;
    case 1:
      return x - y;
    case 2:
      return x * y;
    case 3:
      return x / make_int(d);
    case 4:
      return x % make_int(d);
    case 5:
      return make_binary(ExprOp::Min, x, y);
    case 6:
      return make_binary(ExprOp::Max, x, y);
    case 7:
      return select(make_binary(ExprOp::LT, x, y), x, y);
    case 8:
      return -x;
    default:
      return x * make_int(d) + y;
  }
}

// Every node of `e` at point `at` lies in its own interval.
void expect_within(const Expr& e, const VarIntervals& vars, const std::map<std::string, int64_t>& at) {
  for (const auto& arg : e->args) expect_within(arg, vars, at);
  if (e->op == ExprOp::LT) return;
  auto r = int_interval(e, vars);
  ASSERT_TRUE(r) << to_string(e);
  const int64_t x = c_value(e, at);
  EXPECT_LE(r->lo, x) << to_string(e);
  EXPECT_GE(r->hi, x) << to_string(e);
}

TEST(IndexInterval, EveryValueLiesInTheInterval) {
  std::mt19937 rng(7);
  const VarIntervals vars = {{"a", {0, 1023}}, {"b", {-5, 17}}, {"c", {3, 3}}};
  for (int trial = 0; trial < 300; ++trial) {
    Expr e = random_expr(rng, 1 + trial % 4);
    for (int point = 0; point < 20; ++point) {
      std::map<std::string, int64_t> at;
      for (const auto& [name, range] : vars) at[name] = std::uniform_int_distribution<int64_t>(range.lo, range.hi)(rng);
      expect_within(e, vars, at);
      if (HasFailure()) return;
    }
  }
}

TEST(IndexInterval, UnboundedWhereAVariableHasNoRangeOrTheDivisorIsNotConstant) {
  const VarIntervals vars = {{"a", {0, 9}}};
  EXPECT_FALSE(int_interval(v("a") + v("z"), vars));
  EXPECT_FALSE(int_interval(v("a") / (v("a") + make_int(1)), vars));
  auto r = int_interval((v("a") * make_int(100) + make_int(7)) % make_int(64), vars);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 63);
}

TEST(IndexInterval, Int32SubtreesStopWhereAValueMayPassTwoToThe31) {
  const VarIntervals vars = {{"io", {0, 65535}}, {"ii", {0, 65535}}};
  Expr small = v("ii") / make_int(256) % make_int(16) * make_int(4096) + v("ii") % make_int(256);
  Expr big = v("io") * make_int(65536);
  Expr index = big + small;
  auto narrow = int32_subtrees(index, vars);
  EXPECT_TRUE(narrow.count(small.get()));
  EXPECT_FALSE(narrow.count(big.get())) << "65535 * 65536 passes 2^31 - 1";
  EXPECT_FALSE(narrow.count(index.get()));
  EXPECT_TRUE(narrow.count(big->args[0].get())) << "io alone fits";
}

}  // namespace
}  // namespace cusched
