// Shared subexpressions of a stored value: which repeated subexpressions get a named
// constant, in which order, and that the emitted store evaluates each math call once and
// compiles.
#include "codegen/shared_subexpressions.h"

#include <gtest/gtest.h>

#include "dsl/expr_equal.h"
#include "dsl/math_function.h"
#include "scalar_emit.h"

namespace cusched {
namespace {

using test::a;
using test::has;
using test::ld;
using test::v;

Expr softplus_of(const Expr& x) { return math_call("softplus", {x}); }
Expr tanh_of(const Expr& x) { return math_call("tanh", {x}); }
Expr mish(const Expr& x) { return x * tanh_of(softplus_of(x)); }

size_t count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// Whether `part` occurs (structurally) inside `whole`, itself excluded.
bool contains(const Expr& whole, const Expr& part) {
  for (const auto& a : whole->args)
    if (same_expr(a, part) || contains(a, part)) return true;
  return false;
}

TEST(SharedSubexpressions, MishOfMishSharesItsCallsInDependencyOrder) {
  const Expr inner = mish(a() + 1.0f);
  const auto shared = shared_subexpressions(mish(inner));
  ASSERT_FALSE(shared.empty());
  // Each named value is computed before the values that contain it: a shared subexpression
  // inside the value of the j-th comes earlier in the list.
  int nested = 0;
  for (size_t j = 0; j < shared.size(); ++j)
    for (size_t i = 0; i < shared.size(); ++i)
      if (i != j && contains(shared[j].value, shared[i].value)) {
        ++nested;
        EXPECT_LT(i, j) << i << " lies inside " << j;
      }
  EXPECT_GT(nested, 0) << "softplus inside tanh inside the inner mish";
  bool has_inner = false;
  for (const auto& s : shared) has_inner |= same_expr(s.value, inner);
  EXPECT_TRUE(has_inner) << "the inner mish, read three times by the outer one, is computed once";
  for (const auto& s : shared) EXPECT_GE(s.occurrences.size(), 2u);
}

TEST(SharedSubexpressions, ALoadUnderASelectBranchIsNotHoisted) {
  // tanh(A[t]) only under the branch that the condition guards: evaluating it before the
  // store would read A where the select does not.
  const Expr guarded = tanh_of(a());
  const Expr value = select(v("t") < 4, guarded + guarded * 2.0f, make_float(0.0));
  EXPECT_TRUE(shared_subexpressions(value).empty());
  // Read once outside the branch too, it is evaluated anyway and may be shared.
  const Expr unguarded = select(v("t") < 4, guarded + guarded * 2.0f, make_float(0.0)) + guarded;
  ASSERT_EQ(shared_subexpressions(unguarded).size(), 1u);
  EXPECT_TRUE(same_expr(shared_subexpressions(unguarded)[0].value, guarded));
}

TEST(SharedSubexpressions, ValuesWithoutLoadsAreSharedEvenUnderABranch) {
  const Expr pure = tanh_of(make_float(0.5) + cast(DType::f32, v("t")));
  const Expr value = select(v("t") < 4, pure * pure, make_float(1.0));
  ASSERT_EQ(shared_subexpressions(value).size(), 1u);
}

TEST(SharedSubexpressions, LiteralsThatDifferInTheirLastBitsAreDifferent) {
  const Expr x = tanh_of(a() * 1e-7f) + tanh_of(a() * 1.0000001e-7f);
  EXPECT_TRUE(shared_subexpressions(x).empty());
  const Expr y = tanh_of(a() * 1e-7f) + tanh_of(a() * 1e-7f);
  EXPECT_EQ(shared_subexpressions(y).size(), 1u);
}

TEST(SharedSubexpressions, CheapRepeatsAndSingleUsesGetNoName) {
  EXPECT_TRUE(shared_subexpressions((a() + 1.0f) * (a() + 1.0f)).empty());
  EXPECT_TRUE(shared_subexpressions(tanh_of(a()) + 1.0f).empty());
}

TEST(SharedSubexpressions, TheEmittedStoreCallsEachFunctionOncePerDistinctArgument) {
  const Expr value = mish(mish(a() + 1.0f));
  const std::string src = emit_cuda(test::scalar_program(value));
  // Two distinct softplus and two distinct tanh arguments: the inner and the outer mish's.
  EXPECT_EQ(count(src, "cusched::softplus("), 2u) << src;
  EXPECT_EQ(count(src, "tanhf("), 2u) << src;
  EXPECT_TRUE(has(src, "const float shared_value_")) << src;
  test::NvrtcOutcome r = test::compile_with_nvrtc(src, device_headers());
  EXPECT_TRUE(r.compiled) << r.log << "\n" << src;
}

}  // namespace
}  // namespace cusched
