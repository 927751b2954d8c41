// index_range (codegen/passes/affine.h): the range of an index while some loops sweep.
// Divisions and moduli of loops outside the sweep (a fused block loop) are fixed values
// in the minimum, so a staged copy at an inner loop stays one tile; a division or
// modulus of a sweeping loop is bounded through the range of its dividend.
#include <gtest/gtest.h>

#include "codegen/passes/affine.h"
#include "codegen/passes/simplify.h"
#include "dsl/expr_substitute.h"
#include "tests/codegen/hand_built_ir.h"

namespace cusched {
namespace {

using test::v;

// The value of `e` with each variable bound.
int64_t value_at(const Expr& e, const std::map<std::string, int64_t>& at) {
  std::map<std::string, Expr> values;
  for (const auto& [name, x] : at) values[name] = make_int(x);
  Expr folded = simplify(substitute(e, values));
  auto f = linear_form(folded);
  EXPECT_TRUE(f && f->coeff.empty()) << to_string(folded);
  return f ? f->constant : 0;
}

TEST(IndexRange, DivisionsOfAFixedLoopAreSymbolsOfTheMinimum) {
  // oh = blk / 4 % 126 (a fused block loop), swept by kh in [0, 3) and ci in [0, 16).
  Expr oh = (v("blk") / make_int(4)) % make_int(126);
  Expr index = oh * make_int(128) + v("kh") * make_int(128) + v("ci");
  auto r = index_range(index, {{"kh", 3}, {"ci", 16}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->extent, 2 * 128 + 15 + 1);
  for (int64_t blk : {0, 3, 4, 517, 503 * 4 + 2}) {
    const int64_t lo = value_at(r->min, {{"blk", blk}});
    for (int64_t kh = 0; kh < 3; ++kh)
      for (int64_t ci = 0; ci < 16; ++ci) {
        const int64_t x = value_at(index, {{"blk", blk}, {"kh", kh}, {"ci", ci}});
        EXPECT_GE(x, lo);
        EXPECT_LT(x, lo + r->extent);
      }
  }
}

// Every value of `index` over the sweep of `tile` (fixed `block` taking each of `blocks`)
// lies in the range; returns the largest extent seen.
int64_t check_covers(const Expr& index, const std::string& block, const std::vector<int64_t>& blocks,
                     const std::map<std::string, int64_t>& sweep) {
  auto r = index_range(index, sweep);
  EXPECT_TRUE(r) << to_string(index);
  if (!r) return 0;
  for (int64_t b : blocks) {
    const int64_t lo = value_at(r->min, {{block, b}});
    std::vector<std::map<std::string, int64_t>> points = {{{block, b}}};
    for (const auto& [var, extent] : sweep) {
      std::vector<std::map<std::string, int64_t>> more;
      for (const auto& p : points)
        for (int64_t x = 0; x < extent; ++x) {
          auto q = p;
          q[var] = x;
          more.push_back(q);
        }
      points = more;
    }
    for (const auto& p : points) {
      const int64_t x = value_at(index, p);
      EXPECT_GE(x, lo) << to_string(index) << " at " << block << " = " << b;
      EXPECT_LT(x, lo + r->extent) << to_string(index) << " at " << block << " = " << b;
    }
  }
  return r->extent;
}

TEST(IndexRange, ADivisionOfASweepingLoopIsBoundedThroughItsDividend) {
  // A row and a column of 34 fused and split by 128: colf = colo * 128 + coli.
  Expr colf = v("colo") * make_int(128) + v("coli");
  const std::vector<int64_t> blocks = {0, 1, 2, 7, 8};
  // The rows of a block: 128 / 34 rows and one more where it starts inside a row.
  EXPECT_EQ(check_covers(colf / make_int(34), "colo", blocks, {{"coli", 128}}), 5);
  // With a tap swept too, and the tap subtracted (a padded convolution's row).
  EXPECT_EQ(check_covers(colf / make_int(34) + make_int(1) - v("kh"), "colo", blocks, {{"coli", 128}, {"kh", 5}}), 9);
  // The columns: all 34.
  EXPECT_EQ(check_covers(colf % make_int(34) + make_int(1) - v("kw"), "colo", blocks, {{"coli", 128}, {"kw", 3}}), 36);
  // Asked for exact ranges only (a block's output tile), no bound.
  EXPECT_FALSE(index_range(colf / make_int(34), {{"coli", 128}}, false));
  // A negative coefficient on the division: the minimum is at the top of its range.
  check_covers(make_int(100) - colf / make_int(34), "colo", blocks, {{"coli", 128}});
  // A division inside the fixed part only stays a symbol, as before.
  auto plain = index_range(v("kh") * make_int(2) + v("n"), {{"kh", 3}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->extent, 5);
}

TEST(IndexRange, AModulusOfADividendThatMayBeNegativeHasNoRange) {
  // C's remainder of a negative dividend is negative: no bound from [0, d).
  EXPECT_FALSE(index_range((v("ci") - make_int(3)) % make_int(8), {{"ci", 16}}));
  EXPECT_FALSE(index_range(v("ci") % v("n"), {{"ci", 16}}));
  EXPECT_FALSE(index_range(v("ci") * v("ci"), {{"ci", 16}}));
}

}  // namespace
}  // namespace cusched
