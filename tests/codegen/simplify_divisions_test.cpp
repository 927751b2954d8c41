// The simplify_divisions pass: divisions and moduli by constants split through the
// ranges of loop variables and the thread index. Every rewritten index must give the
// same value as the original at every point of its loops (checked exhaustively by
// constant folding), the copy-loop pattern must lose its per-iteration division, and
// dividends that may be negative, or whose variables have no known range, stay as they are.
#include <gtest/gtest.h>

#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"
#include "dsl/expr_substitute.h"
#include "tests/codegen/hand_built_ir.h"

namespace cusched {
namespace {

using test::v;

// One kernel of `threads` threads: for a in [0, 8) (unrolled): Out[0] = index.
Kernel kernel_storing(const Expr& index, int64_t threads = 256) {
  Kernel k;
  k.name = "k0";
  k.block = {threads, 1, 1};
  k.body =
      make_for("a", make_int(0), make_int(8), LoopKind::Unrolled, GpuAxis::None, make_store("Out", make_int(0), index));
  return k;
}

Expr stored_index(const Kernel& k) { return k.body->body[0]->value; }

Expr rewritten(const Expr& index, int64_t threads = 256) {
  Kernel k = kernel_storing(index, threads);
  simplify_divisions(k);
  return stored_index(k);
}

int64_t value_at(const Expr& e, int64_t a, int64_t tid) {
  int64_t x = 0;
  const Expr folded = simplify(substitute(e, {{"a", make_int(a)}, {"tid", make_int(tid)}}));
  EXPECT_TRUE(is_const_int(folded, &x)) << to_string(folded);
  return x;
}

void expect_same_values_over_threads(const Expr& before, const Expr& after, int64_t threads = 256) {
  for (int64_t a = 0; a < 8; ++a)
    for (int64_t t = 0; t < threads; ++t)
      ASSERT_EQ(value_at(before, a, t), value_at(after, a, t))
          << to_string(before) << " vs " << to_string(after) << " at a = " << a << ", tid = " << t;
}

bool has_division_of_a(const Expr& e) {
  bool found = false;
  rewrite(e, [&](const Expr& x) {
    if ((x->op == ExprOp::Div || x->op == ExprOp::Mod) && mentions_var(x->args[0], "a")) found = true;
    return x;
  });
  return found;
}

TEST(SimplifyDivisions, CopyLoopIndicesLoseTheirDivisionByTheLoop) {
  const Expr unit = v("a") * make_int(256) + v("tid");
  for (int64_t d : {2, 4, 8, 32, 64, 256}) {
    for (bool modulus : {false, true}) {
      const Expr before = modulus ? unit % make_int(d) : unit / make_int(d);
      const Expr after = rewritten(before);
      EXPECT_FALSE(has_division_of_a(after)) << to_string(before) << " -> " << to_string(after);
      expect_same_values_over_threads(before, after);
    }
  }
  // The swizzled shared-memory column: ((a*256 + tid) % 8 ^ (a*256 + tid) / 8 % 8) * 4.
  const Expr swizzle = bit_xor(unit % make_int(8), (unit / make_int(8)) % make_int(8)) * make_int(4);
  const Expr after = rewritten(swizzle);
  EXPECT_FALSE(has_division_of_a(after)) << to_string(after);
  expect_same_values_over_threads(swizzle, after);
}

TEST(SimplifyDivisions, SmallRemaindersFoldAway) {
  // tid % 4 < 4: (tid % 4) / 4 is 0 and (tid % 4) % 4 is tid % 4.
  const Expr lane = v("tid") % make_int(4);
  int64_t zero = -1;
  EXPECT_TRUE(is_const_int(simplify(rewritten(lane / make_int(4))), &zero));
  EXPECT_EQ(zero, 0);
  expect_same_values_over_threads(lane % make_int(4), rewritten(lane % make_int(4)));
  EXPECT_EQ(to_string(rewritten(lane % make_int(4))), to_string(lane));
}

TEST(SimplifyDivisions, RandomAffineDividendsKeepTheirValues) {
  uint64_t seed = 12345;
  auto next = [&](int64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(n));
  };
  const int64_t threads = 64;
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t ca = next(9) * (1 << next(7)), ct = 1 + next(5), c0 = next(40) - 8, d = 1 + next(64);
    Expr x = v("a") * make_int(ca) + v("tid") * make_int(ct) + make_int(c0);
    if (next(2)) x = x / make_int(1 + next(8));  // a nested division: an opaque term with a range
    for (bool modulus : {false, true}) {
      const Expr before = modulus ? x % make_int(d) : x / make_int(d);
      expect_same_values_over_threads(before, rewritten(before, threads), threads);
    }
  }
}

TEST(SimplifyDivisions, VectorLanesStayOutsideTheirRowsDivisions) {
  // A fused loop split into threads of 4 lanes: (tid * 4 + a % 4) / 512 and % 512, a % 4
  // standing for the lane (its range [0, 4)). The quotient loses the lane, the remainder
  // keeps it as a plain + lane, so that 4 lanes are 4 adjacent elements of one row.
  const Expr lane = v("a") % make_int(4);
  const Expr fused = v("tid") * make_int(4) + lane;
  const Expr row = rewritten(fused / make_int(512)), column = rewritten(fused % make_int(512));
  expect_same_values_over_threads(fused / make_int(512), row);
  expect_same_values_over_threads(fused % make_int(512), column);
  bool lane_in_division = false;
  for (const Expr& e : {row, column})
    rewrite(e, [&](const Expr& x) {
      if ((x->op == ExprOp::Div || x->op == ExprOp::Mod) && to_string(x->args[0]).find("a % 4") != std::string::npos)
        lane_in_division = true;
      return x;
    });
  EXPECT_FALSE(lane_in_division) << to_string(row) << " and " << to_string(column);
  // Beside a multiple of the divisor: (a * 512 + tid * 4 + lane) % 512 keeps only the lanes' part.
  const Expr shifted = v("a") * make_int(512) + fused;
  expect_same_values_over_threads(shifted % make_int(512), rewritten(shifted % make_int(512)));
  expect_same_values_over_threads(shifted / make_int(512), rewritten(shifted / make_int(512)));
  // A remainder that can reach the lane width is no lane: tid * 4 + a (a up to 7) stays divided.
  const Expr wide = v("tid") * make_int(4) + v("a");
  EXPECT_EQ(to_string(rewritten(wide / make_int(512))), to_string(wide / make_int(512)));
}

// Comparisons the ranges decide fold to constants and the logic over them folds too: a
// padded load's checks of coordinates that a fused grid's division keeps in range go, the
// check that depends on the window offset stays.
TEST(SimplifyDivisions, ComparisonsTheRangesDecideFoldAway) {
  const Expr flat = v("a") * make_int(256) + v("tid");  // a in [0, 8), tid in [0, 256): flat < 2048
  const Expr row = make_int(0) + flat / make_int(100);  // in [0, 20]
  const Expr column = flat % make_int(100);
  const Expr kept = column + v("a") - make_int(4) >= make_int(0);
  const Expr check = (row >= make_int(0)) && (row < make_int(21)) && kept;
  const Expr folded = rewritten(select(check, make_int(1), make_int(0)));
  EXPECT_EQ(to_string(folded).find("/ 100"), std::string::npos) << to_string(folded);
  EXPECT_NE(to_string(folded).find("% 100"), std::string::npos) << to_string(folded);
  // Decided the other way: row < 0 never holds, so the select takes its other arm.
  const Expr never = rewritten(select(row < make_int(0), make_int(7), flat));
  EXPECT_EQ(to_string(never), to_string(rewritten(flat)));
  // Undecided (row < 20 fails only at flat >= 2000): kept.
  const Expr open = select(row < make_int(20), make_int(1), make_int(0));
  const Expr after = rewritten(open);
  EXPECT_NE(to_string(after).find("<"), std::string::npos) << to_string(after);
}

TEST(SimplifyDivisions, PossiblyNegativeOrUnboundedDividendsAreLeftAlone) {
  // a * 256 + tid - 1 is -1 at a = tid = 0: C's division truncates toward zero there.
  const Expr negative = (v("a") * make_int(256) + v("tid") - make_int(1)) / make_int(8);
  EXPECT_EQ(to_string(rewritten(negative)), to_string(negative));
  const Expr subtracted = (v("a") * make_int(256) - v("tid")) % make_int(8);
  EXPECT_EQ(to_string(rewritten(subtracted)), to_string(subtracted));
  // n is no loop's variable: its range is unknown.
  const Expr unknown = (v("a") * make_int(256) + v("n")) / make_int(8);
  EXPECT_EQ(to_string(rewritten(unknown)), to_string(unknown));
}

}  // namespace
}  // namespace cusched
