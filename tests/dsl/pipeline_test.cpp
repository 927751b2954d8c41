// Pipelines: stage order, inputs, consumers, name clashes; eval_int and its errors.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

using test::error_code;

std::vector<std::string> names(const Pipeline& p) {
  std::vector<std::string> out;
  for (const auto& s : p.stages()) out.push_back(s->name);
  return out;
}

TEST(Pipeline, ProducersComeBeforeConsumers) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D);
  Func M = compute("M", {i}, maximum(k, X(i, k)));
  Func S = compute("S", {i}, sum(k, exp(X(i, k) - M(i))));
  Func Y = compute("Y", {i, j}, exp(X(i, j) - M(i)) / S(i));
  Pipeline p({Y});
  EXPECT_EQ(names(p), (std::vector<std::string>{"M", "S", "Y"}));
  ASSERT_EQ(p.inputs().size(), 1u);
  EXPECT_EQ(p.inputs()[0]->name, "X");
  EXPECT_EQ(p.outputs(), (std::vector<std::string>{"Y"}));
  EXPECT_TRUE(p.is_output("Y"));
  EXPECT_FALSE(p.is_output("S"));
  ASSERT_NE(p.find_stage("S"), nullptr);
  EXPECT_EQ(p.find_stage("X"), nullptr);
  ASSERT_NE(p.find_input("X"), nullptr);
  EXPECT_EQ(p.find_input("M"), nullptr);
  std::vector<std::string> consumers;
  for (const auto* c : p.consumers("M")) consumers.push_back(c->name);
  EXPECT_EQ(consumers, (std::vector<std::string>{"S", "Y"}));
  EXPECT_TRUE(p.consumers("Y").empty());
}

TEST(Pipeline, InputsInOrderOfFirstUseAndUnusedStagesLeftOut) {
  Size N("N");
  Tensor B("B", DType::f32, {N}), A("A", DType::f32, {N}), Z("Z", DType::f32, {N});
  Var i("i", N);
  Func unused = compute("U", {i}, Z(i));
  Func T = compute("T", {i}, B(i) * 2.0);
  Func Y = compute("Y", {i}, T(i) + A(i) + B(i));
  Pipeline p({Y});
  EXPECT_EQ(names(p), (std::vector<std::string>{"T", "Y"}));
  ASSERT_EQ(p.inputs().size(), 2u);
  EXPECT_EQ(p.inputs()[0]->name, "B");
  EXPECT_EQ(p.inputs()[1]->name, "A");
}

TEST(Pipeline, SeveralOutputs) {
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func T = compute("T", {i}, A(i) * 2.0);
  Func Y = compute("Y", {i}, T(i) + 1.0);
  Pipeline p({Y, T});
  EXPECT_EQ(names(p), (std::vector<std::string>{"T", "Y"}));
  EXPECT_EQ(p.outputs(), (std::vector<std::string>{"Y", "T"}));
  EXPECT_TRUE(p.is_output("T"));
}

TEST(PipelineErrors, NameOfAnInputAndAStage) {
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func T = compute("A", {i}, A(i) * 2.0);
  EXPECT_EQ(error_code([&] { Pipeline({T}); }), "duplicate-name");
}

TEST(PipelineErrors, TwoDifferentStagesWithOneName) {
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func T1 = compute("T", {i}, A(i) * 2.0);
  Func T2 = compute("T", {i}, A(i) + 1.0);
  Func Y = compute("Y", {i}, T1(i) + T2(i));
  EXPECT_EQ(error_code([&] { Pipeline({Y}); }), "duplicate-name");
}

TEST(PipelineErrors, AStageThatReadsItself) {
  // compute() cannot build a cycle (a stage is defined before it is read); the pipeline
  // still refuses one made by editing a definition.
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func T = compute("T", {i}, A(i) * 2.0);
  Func Y = compute("Y", {i}, T(i) + 1.0);
  EXPECT_EQ(error_code([&] { Pipeline({Y}); }), "");
  auto* t = const_cast<FuncDef*>(T.ptr().get());
  t->body = Y(i) * 2.0;
  EXPECT_EQ(error_code([&] { Pipeline({Y}); }), "cyclic-pipeline");
  t->body = Expr();  // breaks the reference cycle
}

TEST(PipelineErrors, TwoDifferentInputsWithOneName) {
  Size N("N");
  Tensor A1("A", DType::f32, {N}), A2("A", DType::f16, {N});
  Var i("i", N);
  Func Y = compute("Y", {i}, A1(i) + A2(i));
  EXPECT_EQ(error_code([&] { Pipeline({Y}); }), "duplicate-name");
}

TEST(EvalInt, SizesAndArithmetic) {
  Size M("M"), N("N");
  SizeBindings s = {{"M", 6}, {"N", 4}};
  EXPECT_EQ(eval_int(Expr(M) * Expr(N) + 2, s), 26);
  EXPECT_EQ(eval_int(Expr(M) / Expr(N) - 1, s), 0);
  EXPECT_EQ(eval_int(Expr(int64_t{5}), s), 5);
  EXPECT_EQ(eval_shape({M, N, Expr(M) - Expr(N)}, s), (std::vector<int64_t>{6, 4, 2}));
}

TEST(EvalIntErrors, EachError) {
  Size M("M"), Q("Q");
  SizeBindings s = {{"M", 6}};
  EXPECT_EQ(error_code([&] { eval_int(Q, s); }), "unbound-size");
  EXPECT_EQ(error_code([&] { eval_int(Expr(M) / (Expr(M) - 6), s); }), "division-by-zero");
  EXPECT_EQ(error_code([&] { eval_int(Expr(M) % 4, s); }), "bad-size-expr");
  EXPECT_EQ(error_code([&] { eval_int(Expr(Var("i", M)) + 1, s); }), "bad-size-expr");
  EXPECT_EQ(error_code([&] { eval_int(Expr(2.5), s); }), "bad-size-expr");
  EXPECT_EQ(error_code([&] { eval_int(Expr(), s); }), "undefined-expr");
}

}  // namespace
}  // namespace cusched
