// index_range (codegen/passes/affine.h): the range of an index while some loops sweep.
// Divisions and moduli of loops outside the sweep (a fused block loop) are fixed values
// in the minimum, so a staged copy at an inner loop stays one tile; a division of a
// sweeping loop is not affine and gives no range.
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

TEST(IndexRange, ADivisionOfASweepingLoopHasNoRange) {
  EXPECT_FALSE(index_range(v("kh") / make_int(2) + v("ci"), {{"kh", 3}, {"ci", 16}}));
  auto plain = index_range(v("kh") * make_int(2) + v("n"), {{"kh", 3}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->extent, 5);
}

}  // namespace
}  // namespace cusched
