// The algorithm language: expression types, reductions, stages and their errors.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

using test::error_code;

struct ExprFixture {
  Size N{"N"};
  Tensor A{"A", DType::f32, {N}};
  Tensor H{"H", DType::f16, {N}};
  Tensor Bf{"Bf", DType::bf16, {N}};
  Tensor D{"D", DType::f64, {N}};
  Tensor I32{"I32", DType::i32, {N}};
  Tensor I64{"I64", DType::i64, {N}};
  Var i{"i", N};
};

TEST(ExprTypes, WeakLiteralsAdoptTheTensorType) {
  ExprFixture f;
  EXPECT_EQ((f.A(f.i) * 2.0).type(), DType::f32);
  EXPECT_EQ((2.0 * f.A(f.i)).type(), DType::f32);
  EXPECT_EQ((f.A(f.i) + 1).type(), DType::f32);
  EXPECT_EQ((f.H(f.i) * 0.5).type(), DType::f16);
  EXPECT_EQ((f.Bf(f.i) - 3).type(), DType::bf16);
  EXPECT_EQ((f.D(f.i) / 2.0).type(), DType::f64);
  EXPECT_EQ((f.I64(f.i) + 1).type(), DType::i64);
  EXPECT_FALSE((f.A(f.i) * 2.0)->weak);
}

TEST(ExprTypes, IntegerAndFloatMixes) {
  ExprFixture f;
  EXPECT_EQ((f.I32(f.i) * 1.5).type(), DType::f32);  // a float literal makes an int f32
  EXPECT_EQ((f.I32(f.i) + f.A(f.i)).type(), DType::f32);
  EXPECT_EQ((f.I64(f.i) * f.H(f.i)).type(), DType::f16);
  EXPECT_EQ((f.I32(f.i) + f.I64(f.i)).type(), DType::i64);
  EXPECT_EQ((Expr(f.i) + 1).type(), DType::i32);
  EXPECT_EQ((Expr(f.i) * Expr(f.N)).type(), DType::i64);  // sizes are i64
}

TEST(ExprTypes, FloatMixes) {
  ExprFixture f;
  EXPECT_EQ((f.H(f.i) + f.Bf(f.i)).type(), DType::f32);
  EXPECT_EQ((f.H(f.i) + f.A(f.i)).type(), DType::f32);
  EXPECT_EQ((f.A(f.i) + f.D(f.i)).type(), DType::f64);
  EXPECT_EQ((f.H(f.i) * 1.0f).type(), DType::f32);  // a typed float literal is f32
}

TEST(ExprTypes, LiteralsAndWeakness) {
  EXPECT_EQ(Expr(3).type(), DType::i32);
  EXPECT_TRUE(Expr(3)->weak);
  EXPECT_EQ(Expr(int64_t{3}).type(), DType::i64);
  EXPECT_FALSE(Expr(int64_t{3})->weak);
  EXPECT_EQ(Expr(2.5).type(), DType::f32);
  EXPECT_TRUE(Expr(2.5)->weak);
  EXPECT_FALSE(Expr(2.5f)->weak);
  Expr mix = Expr(2) * Expr(0.5);
  EXPECT_EQ(mix.type(), DType::f32);
  EXPECT_TRUE(mix->weak);
  EXPECT_TRUE((-Expr(2.0))->weak);
}

TEST(ExprTypes, ComparisonsLogicAndSelect) {
  ExprFixture f;
  EXPECT_EQ((f.A(f.i) < 0.0).type(), DType::boolean);
  EXPECT_EQ((f.A(f.i) == f.A(f.i)).type(), DType::boolean);
  EXPECT_EQ(((f.A(f.i) > 0.0) && (Expr(f.i) < 3)).type(), DType::boolean);
  EXPECT_EQ((!(f.A(f.i) > 0.0)).type(), DType::boolean);
  EXPECT_EQ(select(f.A(f.i) > 0.0, f.A(f.i), 0.0).type(), DType::f32);
  EXPECT_EQ(select(Expr(f.i) > 0, f.H(f.i), 0).type(), DType::f16);
  EXPECT_EQ(cast(DType::bf16, f.A(f.i)).type(), DType::bf16);
}

TEST(ExprTypes, ExclusiveOrTakesIntegersOnly) {
  ExprFixture f;
  EXPECT_EQ(bit_xor(Expr(f.i), 3).type(), DType::i32);
  EXPECT_EQ(bit_xor(f.I64(f.i), Expr(f.i)).type(), DType::i64);
  EXPECT_EQ(error_code([&] { bit_xor(f.A(f.i), Expr(f.i)); }), "xor-of-float");
  EXPECT_EQ(error_code([&] { bit_xor(Expr(f.i), f.H(f.i)); }), "xor-of-float");
  EXPECT_EQ(error_code([&] { bit_xor(f.I32(f.i), 1.5); }), "xor-of-float");  // a float literal is a float
  try {
    bit_xor(f.D(f.i), f.D(f.i));
    ADD_FAILURE() << "bit_xor of two f64 operands was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.error().hint.find("integer"), std::string::npos) << e.error().hint;
  }
}

TEST(ExprTypes, MathFunctions) {
  ExprFixture f;
  EXPECT_EQ(exp(f.A(f.i)).type(), DType::f32);
  EXPECT_EQ(exp(f.H(f.i)).type(), DType::f16);
  EXPECT_EQ(sqrt(f.I32(f.i)).type(), DType::f32);
  EXPECT_EQ(log(Expr(2)).type(), DType::f32);
  EXPECT_EQ(pow(Expr(f.i), 2).type(), DType::f32);
  EXPECT_EQ(pow(f.D(f.i), 2.0).type(), DType::f64);
  EXPECT_EQ(abs(f.I64(f.i)).type(), DType::i64);
  int arity = 0;
  EXPECT_TRUE(is_math_function("rsqrt", &arity));
  EXPECT_EQ(arity, 1);
  EXPECT_FALSE(is_math_function("sinh"));
}

TEST(ExprPrinting, ReadableForm) {
  ExprFixture f;
  EXPECT_EQ(to_string(f.A(f.i) * 2.0 + 1), "((A[i] * 2.0) + 1)");
  EXPECT_EQ(to_string(max(f.A(f.i), 0.0)), "max(A[i], 0.0)");
  EXPECT_EQ(to_string(cast(DType::f16, f.A(f.i))), "f16(A[i])");
  EXPECT_EQ(to_string(Expr()), "<undefined>");
  int64_t v = 0;
  EXPECT_TRUE(is_const_int(Expr(7), &v));
  EXPECT_EQ(v, 7);
  EXPECT_FALSE(is_const_int(Expr(7.0)));
}

TEST(Reductions, TypesAndDomains) {
  Size R("R"), K("K");
  Tensor X("X", DType::f16, {R, K});
  Var i("i", R);
  RVar k("k", K), r2("r2", 4);
  EXPECT_EQ(sum(k, X(i, k)).type(), DType::f16);
  EXPECT_EQ(maximum(k, X(i, k)).type(), DType::f16);
  EXPECT_EQ(argmax(k, X(i, k)).type(), DType::i64);
  EXPECT_EQ(argmin({k, r2}, X(i, k)).type(), DType::i64);
  EXPECT_EQ(sum(k, 1).type(), DType::i32);  // counting with a weak literal
  EXPECT_EQ(sum(k, 1.0).type(), DType::f32);
  Expr s = sum({k, r2}, X(i, k));
  ASSERT_EQ(s->rvars.size(), 2u);
  EXPECT_EQ(s->rvars[0].name, "k");
  EXPECT_EQ(s->rvars[0].extent, 0);  // symbolic
  EXPECT_EQ(s->rvars[1].extent, 4);
  EXPECT_EQ(to_string(s), "sum(k, r2; X[i, k])");
  EXPECT_EQ(reduce_op_name(ReduceOp::ArgMax), "argmax");
  Func F = compute("F", {i}, argmax(k, X(i, k)));
  EXPECT_EQ(F.def().dtype, DType::i64);
  EXPECT_TRUE(F.def().is_reduction());
}

TEST(ReductionErrors, NestedReductionUnderAConditionOnly) {
  Size R("R"), K("K");
  Tensor X("X", DType::f32, {R, K});
  Var i("i", R);
  RVar k("k", K), k2("k2", K);
  // Reductions inside expressions are split into stages (tests/dsl/reduction_split_test.cpp).
  EXPECT_EQ(error_code([&] { compute("S", {i}, sum(k, X(i, k)) + 1.0); }), "");
  EXPECT_EQ(error_code([&] { compute("S", {i}, sum(k, maximum(k2, X(i, k2)) * X(i, k))); }), "");
  EXPECT_EQ(error_code([&] { compute("S", {i}, exp(sum(k, X(i, k)))); }), "");
  EXPECT_EQ(error_code([&] { compute("S", {i}, select(i > 0, exp(sum(k, X(i - 1, k))), 0.0f)); }), "nested-reduction");
}

TEST(ReductionErrors, EmptyDomainAndUndefinedBody) {
  Size K("K");
  Tensor X("X", DType::f32, {K});
  EXPECT_EQ(error_code([&] { sum(std::vector<RVar>{}, X(0)); }), "empty-reduction");
  EXPECT_EQ(error_code([&] { sum(RVar("k", K), Expr()); }), "undefined-expr");
}

TEST(StageErrors, IndexingAndDefinition) {
  Size N("N");
  Tensor A("A", DType::f32, {N, N});
  Var i("i", N);
  EXPECT_EQ(error_code([&] { A(i); }), "wrong-index-count");
  Func F = compute("F", {i}, A(i, i));
  EXPECT_EQ(error_code([&] { F(i, i); }), "wrong-index-count");
  EXPECT_EQ(error_code([&] {
              Func g;
              g(i);
            }),
            "undefined-func");
  EXPECT_EQ(error_code([&] { compute("", {i}, A(i, i)); }), "bad-name");
  EXPECT_EQ(error_code([&] { compute("G", {i}, Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { (void)(Expr() + 1); }), "undefined-expr");
}

TEST(StageErrors, UndefinedOperandsOfEveryBuilder) {
  EXPECT_EQ(error_code([&] { (void)(-Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { (void)(!Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { exp(Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { abs(Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { cast(DType::f16, Expr()); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { select(Expr(), 1, 2); }), "undefined-expr");
  EXPECT_EQ(error_code([&] { select(Expr(1) > 0, Expr(), 2); }), "undefined-expr");
}

TEST(Stages, DtypeFollowsTheBody) {
  Size N("N");
  Tensor H("H", DType::f16, {N});
  Var i("i", N);
  EXPECT_EQ(compute("F", {i}, H(i) * 2.0).def().dtype, DType::f16);
  EXPECT_EQ(compute("G", {i}, Expr(1.0)).def().dtype, DType::f32);
  EXPECT_EQ(compute("J", {i}, Expr(i) + 1).def().dtype, DType::i32);
  Func K = compute("K", {i}, H(i));
  EXPECT_EQ(K.def().vars, (std::vector<std::string>{"i"}));
  EXPECT_FALSE(K.def().is_reduction());
}

}  // namespace
}  // namespace cusched
