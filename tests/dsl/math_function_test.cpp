// The math functions of the language: the C++ builders and the text syntax build the
// same typed calls, printing and parsing are exact inverses, bad calls are structured
// errors, and docs/problem-files.md lists every function.
#include "dsl/math_function.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "dsl/expr_equal.h"
#include "dsl/expr_text.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

using test::error_code;

struct MathFunctionFixture {
  Size R{"R"};
  Tensor X{"X", DType::f32, {R}};
  Tensor D{"D", DType::f64, {R}};
  Tensor H{"H", DType::f16, {R}};
  Tensor I{"I", DType::i32, {R}};
  Tensor L{"L", DType::i64, {R}};
  Var i{"i", R};
  ExprScope scope() const {
    ExprScope s;
    s.sizes = {"R"};
    s.tensors = {{"X", X.ptr()}, {"D", D.ptr()}, {"H", H.ptr()}, {"I", I.ptr()}, {"L", L.ptr()}};
    s.vars = {"i"};
    return s;
  }
};

// Each builder of expr.h, by the name it calls.
std::vector<std::pair<std::string, Expr>> every_builder(const Expr& x) {
  return {{"exp", exp(x)},     {"log", log(x)},         {"sqrt", sqrt(x)},
          {"rsqrt", rsqrt(x)}, {"tanh", tanh(x)},       {"erf", erf(x)},
          {"abs", abs(x)},     {"sigmoid", sigmoid(x)}, {"softplus", softplus(x)},
          {"log1p", log1p(x)}, {"expm1", expm1(x)},     {"floor", floor(x)},
          {"ceil", ceil(x)},   {"round", round(x)},     {"sign", sign(x)},
          {"sin", sin(x)},     {"cos", cos(x)},         {"clamp", clamp(x, -1.0f, 1.0f)}};
}

TEST(MathFunctions, EveryFunctionHasABuilderAndOneDeclaration) {
  MathFunctionFixture f;
  auto builders = every_builder(f.X(f.i));
  ASSERT_EQ(builders.size(), math_functions().size());
  for (const auto& [name, e] : builders) {
    ASSERT_EQ(e->op, ExprOp::Call) << name;
    EXPECT_EQ(e->name, name);
    const MathFunction* m = math_function(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(e->args.size(), m->params.size()) << name;
    int arity = 0;
    EXPECT_TRUE(is_math_function(name, &arity));
    EXPECT_EQ(arity, static_cast<int>(m->params.size()));
    EXPECT_TRUE(is_reserved_word(name)) << name << " could name a tensor";
  }
  EXPECT_EQ(math_signature(*math_function("clamp")), "clamp(x, lo, hi)");
  EXPECT_FALSE(is_math_function("hardtanh"));
}

TEST(MathFunctions, ResultTypesFollowTheOperand) {
  MathFunctionFixture f;
  EXPECT_EQ(sigmoid(f.X(f.i)).type(), DType::f32);
  EXPECT_EQ(sigmoid(f.D(f.i)).type(), DType::f64);
  EXPECT_EQ(softplus(f.H(f.i)).type(), DType::f16);
  EXPECT_EQ(sin(f.I(f.i)).type(), DType::f32);
  EXPECT_EQ(log1p(Expr(2)).type(), DType::f32);
  EXPECT_EQ(expm1(Expr(0.5)).type(), DType::f32);
  // floor, ceil, round, sign and abs keep integers integer, as torch does.
  EXPECT_EQ(floor(f.I(f.i)).type(), DType::i32);
  EXPECT_EQ(round(f.L(f.i)).type(), DType::i64);
  EXPECT_EQ(sign(f.I(f.i)).type(), DType::i32);
  EXPECT_EQ(sign(f.D(f.i)).type(), DType::f64);
  EXPECT_EQ(ceil(f.X(f.i)).type(), DType::f32);
  // clamp promotes its three arguments as min and max do.
  EXPECT_EQ(clamp(f.X(f.i), 0, 6).type(), DType::f32);
  EXPECT_EQ(clamp(f.I(f.i), 0, 6).type(), DType::i32);
  EXPECT_EQ(clamp(f.I(f.i), 0.0f, 6).type(), DType::f32);
  EXPECT_EQ(clamp(f.X(f.i), f.D(f.i), 1.0f).type(), DType::f64);
  EXPECT_TRUE(clamp(1, 0, 2)->weak);
  EXPECT_FALSE(clamp(f.X(f.i), 0, 2)->weak);
}

TEST(MathFunctions, BadCallsAreStructuredErrors) {
  MathFunctionFixture f;
  EXPECT_EQ(error_code([&] { sigmoid(f.X(f.i) > 0.0f); }), "type-error");
  EXPECT_EQ(error_code([&] { clamp(f.X(f.i), f.X(f.i) > 0.0f, 1.0f); }), "type-error");
  EXPECT_EQ(error_code([&] { math_call("clamp", {f.X(f.i)}); }), "wrong-argument-count");
  EXPECT_EQ(error_code([&] { math_call("hardtanh", {f.X(f.i)}); }), "unknown-function");
  EXPECT_EQ(error_code([&] { sin(Expr()); }), "undefined-expr");
  ExprScope s = f.scope();
  EXPECT_EQ(error_code([&] { expr_from_text("clamp(X(i), 0)", s); }), "wrong-argument-count");
  EXPECT_EQ(error_code([&] { expr_from_text("sigmoid(X(i), 1)", s); }), "wrong-argument-count");
  EXPECT_EQ(error_code([&] { expr_from_text("round(X(i) > 0)", s); }), "type-error");
  EXPECT_EQ(error_code([&] { expr_from_text("hardtanh(X(i))", s); }), "unknown-tensor");
}

TEST(MathFunctions, TextRoundTripsEveryFunctionAtEveryType) {
  MathFunctionFixture f;
  ExprScope s = f.scope();
  for (const Expr& x : {f.X(f.i), f.D(f.i), f.H(f.i), f.I(f.i), f.L(f.i), Expr(2), Expr(0.5), f.X(f.i) * 2 + 1}) {
    for (const auto& [name, e] : every_builder(x)) {
      std::string text = expr_to_text(e);
      Expr back = expr_from_text(text, s);
      std::string why;
      EXPECT_TRUE(same_expr(e, back, &why)) << text << ": " << why;
      EXPECT_EQ(expr_to_text(back), text);
    }
  }
  Expr nested = clamp(sigmoid(f.X(f.i)) * softplus(-f.X(f.i)), sign(f.X(f.i)), round(f.X(f.i) / 2.0f) + 1);
  EXPECT_EQ(expr_to_text(nested), "clamp(sigmoid(X(i)) * softplus(-X(i)), sign(X(i)), round(X(i) / 2.0f) + 1)");
  std::string why;
  EXPECT_TRUE(same_expr(nested, expr_from_text(expr_to_text(nested), s), &why)) << why;
  // Text written by hand reads as the C++ DSL builds it.
  EXPECT_TRUE(same_expr(expr_from_text("clamp(X(i), -1.0f, 1.0f)", s), clamp(f.X(f.i), -1.0f, 1.0f), &why)) << why;
  EXPECT_TRUE(same_expr(expr_from_text("log1p(exp(X(i)))", s), log1p(exp(f.X(f.i))), &why)) << why;
}

TEST(MathFunctions, ADslTensorCannotBeNamedAfterAFunction) {
  ExprScope s;
  s.sizes = {"R"};
  EXPECT_EQ(error_code([&] { stage_from_text("sigmoid(i in R) = 1.0f", s); }), "duplicate-name");
}

std::string read_source(const std::string& path) {
  std::ifstream in(std::string(CUSCHED_SOURCE_DIR) + "/" + path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TEST(MathFunctions, ProblemFileDocsListEveryFunction) {
  std::string doc = read_source("docs/problem-files.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& m : math_functions()) {
    std::string row = "| `" + math_signature(m) + "` | " + m.meaning + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/problem-files.md lacks the row " << row;
  }
}

}  // namespace
}  // namespace cusched
