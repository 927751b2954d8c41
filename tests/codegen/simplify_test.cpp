// simplify(): k * (x % c) + k * c * (x / c) folds back to k * x and k * (x % a) +
// k * a * (x / a % b) to k * (x % (a * b)) (C's truncating division and remainder make
// both exact for every integer x, negative ones included), also
// inside larger sums; pairs whose coefficients or divisors do not match stay, and every
// result keeps the value of the original expression (checked by constant folding).
#include "codegen/passes/simplify.h"

#include <gtest/gtest.h>

#include "dsl/expr_substitute.h"

namespace cusched {
namespace {

Expr var(const char* n) { return make_var(n); }
Expr i(int64_t v) { return make_int(v); }

int64_t value(const Expr& e, int64_t a, int64_t b) {
  int64_t x = 0;
  const Expr folded = simplify(substitute(e, {{"a", i(a)}, {"b", i(b)}}));
  EXPECT_TRUE(is_const_int(folded, &x)) << to_string(folded);
  return x;
}

void expect_same_values(const Expr& before, const Expr& after) {
  for (int64_t a = -300; a <= 300; a += 7)
    for (int64_t b = -40; b <= 40; b += 3)
      ASSERT_EQ(value(before, a, b), value(after, a, b))
          << to_string(before) << " vs " << to_string(after) << " at a = " << a << ", b = " << b;
}

bool mentions(const Expr& e, ExprOp op) {
  bool found = false;
  rewrite(e, [&](const Expr& x) {
    found = found || x->op == op;
    return x;
  });
  return found;
}

TEST(Simplify, QuotientAndRemainderPairsFoldBackToTheDividend) {
  const Expr x = var("a") * i(4) + var("b");
  const Expr pair = x % i(126) + x / i(126) * i(126);
  const Expr folded = simplify(pair);
  EXPECT_FALSE(mentions(folded, ExprOp::Mod)) << to_string(folded);
  EXPECT_FALSE(mentions(folded, ExprOp::Div)) << to_string(folded);
  expect_same_values(pair, folded);

  // Scaled by a common factor and among other terms: b % 128 * 15876 + b / 128 * 2032128.
  const Expr scaled = var("a") * i(4) + var("b") % i(128) * i(15876) + var("b") / i(128) * i(2032128) + i(3);
  const Expr folded_scaled = simplify(scaled);
  EXPECT_FALSE(mentions(folded_scaled, ExprOp::Mod)) << to_string(folded_scaled);
  expect_same_values(scaled, folded_scaled);
}

TEST(Simplify, NestedRemaindersMergeIntoOne) {
  // A copy's element index over dimensions of 8 x 3 x 3: x / 9 % 8 * 9 + x / 3 % 3 * 3 + x % 3
  // is x % 72, and with x / 72 * 72 beside it, x itself.
  const Expr x = var("a") * i(4) + var("b");
  const Expr three = x / i(9) % i(8) * i(9) + x / i(3) % i(3) * i(3) + x % i(3);
  const Expr merged = simplify(three);
  EXPECT_EQ(to_string(merged), to_string(simplify(x % i(72)))) << to_string(merged);
  expect_same_values(three, merged);
  const Expr whole = three + x / i(72) * i(72);
  const Expr folded = simplify(whole);
  EXPECT_FALSE(mentions(folded, ExprOp::Mod)) << to_string(folded);
  expect_same_values(whole, folded);
  // Scaled by a common factor, among other terms.
  const Expr scaled = (x % i(4) + x / i(4) % i(5) * i(4)) * i(6) + var("a");
  const Expr folded_scaled = simplify(scaled);
  EXPECT_EQ(to_string(folded_scaled), to_string(simplify(x % i(20) * i(6) + var("a")))) << to_string(folded_scaled);
  expect_same_values(scaled, folded_scaled);
}

TEST(Simplify, MismatchedNestedRemaindersStay) {
  const Expr a = var("a");
  for (const Expr& e : {a % i(3) + a / i(3) % i(4) * i(4),              // coefficient is not k * a
                        a % i(3) + a / i(2) % i(4) * i(3),              // another divisor
                        a % i(3) + (a + i(1)) / i(3) % i(4) * i(3)}) {  // another dividend
    const Expr s = simplify(e);
    EXPECT_NE(to_string(s), to_string(simplify(a % i(12)))) << to_string(e) << " -> " << to_string(s);
    expect_same_values(e, s);
  }
}

TEST(Simplify, MismatchedPairsStay) {
  const Expr a = var("a");
  for (const Expr& e : {a % i(8) + a / i(8) * i(7),           // coefficient is not k * c
                        a % i(8) + a / i(4) * i(8),           // another divisor
                        a % i(8) + (a + i(1)) / i(8) * i(8),  // another dividend
                        a % i(8) * i(2) + a / i(8) * i(8)}) {
    const Expr s = simplify(e);
    EXPECT_TRUE(mentions(s, ExprOp::Mod)) << to_string(e) << " -> " << to_string(s);
    expect_same_values(e, s);
  }
}

}  // namespace
}  // namespace cusched
