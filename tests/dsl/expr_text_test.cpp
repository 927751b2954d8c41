// The expression text syntax: printed DSL expressions parse back to the identical
// tree, the text reads like the C++ DSL, and bad text gives a structured error.
#include "dsl/expr_text.h"

#include <limits>

#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/expr_equal.h"

namespace cusched {
namespace {

struct ExprTextFixture {
  Size R{"R"}, D{"D"};
  Tensor X{"X", DType::f32, {R, D}};
  Tensor I{"I", DType::i64, {R}};
  Var i{"i", R}, j{"j", D};
  RVar k{"k", D};
  ExprScope scope() const {
    ExprScope s;
    s.sizes = {"R", "D"};
    s.tensors = {{"X", X.ptr()}, {"I", I.ptr()}};
    s.vars = {"i", "j"};
    return s;
  }
};

void expect_round_trip(const Expr& e, const ExprScope& scope, bool reduction = false) {
  std::string text = expr_to_text(e);
  Expr back = expr_from_text(text, scope, reduction);
  std::string why;
  EXPECT_TRUE(same_expr(e, back, &why)) << text << ": " << why;
  EXPECT_EQ(expr_to_text(back), text);
}

std::string text_error_code(const std::string& text, const ExprScope& scope, bool reduction = false) {
  try {
    expr_from_text(text, scope, reduction);
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().hint.empty()) << text;
    EXPECT_NE(e.error().message.find("column"), std::string::npos) << e.error().message;
    return e.error().code;
  }
  return "";
}

TEST(ExprText, ReadsLikeTheDsl) {
  ExprTextFixture f;
  EXPECT_EQ(expr_to_text(f.X(f.i, f.j) / (1 + exp(-f.X(f.i, f.j)))), "X(i, j) / (1 + exp(-X(i, j)))");
  EXPECT_EQ(expr_to_text(sum(f.k, f.X(f.i, f.k) * f.X(f.i, f.k))), "sum(k in D: X(i, k) * X(i, k))");
  EXPECT_EQ(expr_to_text((f.X(f.i, f.j) - 1) - (Expr(2) - f.X(f.i, f.j))), "X(i, j) - 1 - (2 - X(i, j))");
  EXPECT_EQ(expr_to_text(cast(DType::bf16, f.X(f.i, f.j)) * 0.5f), "bf16(X(i, j)) * 0.5f");
}

TEST(ExprText, EveryOperationRoundTrips) {
  ExprTextFixture f;
  Expr x = f.X(f.i, f.j), y = f.X(f.i, Expr(f.D) - 1 - f.j);
  std::vector<Expr> cases = {x + y,
                             x - y,
                             x * y,
                             x / y,
                             Expr(f.i) % 3,
                             min(x, y),
                             max(x, 0.0f),
                             pow(x, 2),
                             bit_xor(Expr(f.i), Expr(f.j)),
                             x == y,
                             x != y,
                             x<y, x <= y, x>
                                 y,
                             x >= y,
                             (x > 0) && (y < 0),
                             (x > 0) || !(y < 0),
                             -x,
                             -(-x),
                             select(x > y, x, y),
                             cast(DType::f64, x),
                             cast(DType::i32, x),
                             cast(DType::f16, x),
                             exp(x),
                             log(x),
                             sqrt(x),
                             rsqrt(x),
                             tanh(x),
                             erf(x),
                             abs(x),
                             x * 1e-5,
                             x * 1e-5f,
                             x + make_float(0.1, DType::f64),
                             x + make_float(0.1),
                             Expr(f.i) + make_int(3),
                             Expr(f.i) + Expr(int64_t{1} << 40),
                             Expr(f.i) * -3,
                             Expr(f.i) - -3,
                             -Expr(3),
                             x * -0.5,
                             make_float(-std::numeric_limits<double>::infinity()),
                             make_float(std::numeric_limits<double>::infinity(), DType::f64),
                             make_bool(true),
                             x * cast(DType::f32, Expr(f.D) * f.R),
                             f.X(f.i, f.I(f.i)),
                             (x - 1) * (y + 2) / (x - y),
                             Expr(f.i) - (Expr(f.j) - 1),
                             bit_xor(Expr(f.i), Expr(f.j)) == 0,
                             Expr(3) * 2.5,
                             1.0 / 3.0 + x};
  for (const auto& e : cases) expect_round_trip(e, f.scope());
}

TEST(ExprText, ReductionsRoundTrip) {
  ExprTextFixture f;
  RVar r("r", 4), s("s", make_int(5));
  Expr x = f.X(f.i, f.k);
  for (const auto& e : {sum(f.k, x), product(f.k, x), maximum(f.k, x), minimum(f.k, x), argmax(f.k, x), argmin(f.k, x),
                        sum({f.k, r, s}, x * Expr(r) + Expr(s))})
    expect_round_trip(e, f.scope(), true);
}

TEST(ExprText, StageRoundTrips) {
  ExprTextFixture f;
  Func M = compute("M", {f.i}, maximum(f.k, f.X(f.i, f.k)));
  ExprScope scope = f.scope();
  scope.vars.clear();
  std::string text = stage_to_text(M.def());
  EXPECT_EQ(text, "M(i in R) = maximum(k in D: X(i, k))");
  Func back = stage_from_text(text, scope);
  std::string why;
  EXPECT_TRUE(same_stage(M.def(), back.def(), &why)) << why;
  scope.stages["M"] = back.ptr();
  Func Y = stage_from_text("Y(i in R, j in D) = exp(X(i, j) - M(i))", scope);
  EXPECT_EQ(Y.def().body->args[0]->args[1]->func, back.ptr());
}

TEST(ExprText, AliasesAndSpacing) {
  ExprTextFixture f;
  Expr a = expr_from_text("max(k in D: X(i,k))", f.scope(), true);
  EXPECT_EQ(a->op, ExprOp::Reduce);
  EXPECT_EQ(a->reduce_op, ReduceOp::Max);
  EXPECT_EQ(expr_from_text("max(X(i, j), 0)", f.scope())->op, ExprOp::Max);
  EXPECT_EQ(expr_from_text("1.5_f64", f.scope())->type, DType::f64);
}

TEST(ExprText, ErrorsAreStructured) {
  ExprTextFixture f;
  ExprScope s = f.scope();
  EXPECT_EQ(text_error_code("X(i, j) +", s), "expr-syntax");
  EXPECT_EQ(text_error_code("X(i, j) $ 2", s), "expr-syntax");
  EXPECT_EQ(text_error_code("(X(i, j)", s), "expr-syntax");
  EXPECT_EQ(text_error_code("Z(i, j)", s), "unknown-tensor");
  EXPECT_EQ(text_error_code("X(i, q)", s), "unknown-name");
  EXPECT_EQ(text_error_code("X(i)", s), "wrong-index-count");
  EXPECT_EQ(text_error_code("X + 1", s), "wrong-index-count");
  EXPECT_EQ(text_error_code("exp(X(i, j), 2)", s), "wrong-argument-count");
  EXPECT_EQ(text_error_code("1 + sum(k in D: X(i, k))", s, true), "nested-reduction");
  EXPECT_EQ(text_error_code("sum(k in D: X(i, k))", s, false), "nested-reduction");
  EXPECT_EQ(text_error_code("sum(k in D: sum(l in D: X(i, l)))", s, true), "nested-reduction");  // not a stage
  EXPECT_EQ(text_error_code("X(i, j) ^ 2", s), "type-error");
  EXPECT_EQ(text_error_code("X(i, 0.5)", s), "type-error");
  EXPECT_EQ(text_error_code("select(X(i, j), 1, 2)", s), "type-error");
  EXPECT_EQ(text_error_code("sum(k in 2.5: X(i, k))", s, true), "type-error");
  EXPECT_EQ(text_error_code("3q7", s), "bad-literal");
  EXPECT_EQ(text_error_code("3000000000", s), "bad-literal");
  EXPECT_EQ(text_error_code("sum(i in D: X(i, i))", s, true), "duplicate-name");
  EXPECT_EQ(text_error_code("sum(X(i, j))", s, true), "expr-syntax");
}

TEST(ExprText, ErrorNamesLineAndColumn) {
  ExprTextFixture f;
  try {
    expr_from_text("X(i, j) +\n  Z(i)", f.scope());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(e.error().message.find("line 2, column 3"), std::string::npos) << e.error().message;
  }
}

}  // namespace
}  // namespace cusched
