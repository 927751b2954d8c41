// The two sum-of-products tests of a stage: any sum of a product whose factors both read
// memory (what operand precision applies to), and the stricter product of two single
// loads (what tensor_core lowers).
#include <gtest/gtest.h>

#include "dsl/dsl.h"

namespace cusched {
namespace {

struct Operands {
  Size M{"M"}, N{"N"}, K{"K"};
  Tensor A{"A", DType::f32, {M, K}}, B{"B", DType::f32, {K, N}}, H{"H", DType::f16, {M, K}};
  Var i{"i", M}, j{"j", N};
  RVar k{"k", K};
};

TEST(SumOfProducts, TheProductOfTwoLoadsIsBoth) {
  Operands o;
  Func C = compute("C", {o.i, o.j}, sum(o.k, o.A(o.i, o.k) * o.B(o.k, o.j)));
  EXPECT_TRUE(C.def().is_sum_of_products());
  EXPECT_TRUE(C.def().is_sum_of_load_products());
}

TEST(SumOfProducts, CastsAroundTheLoadsAndTheProductAreLookedThrough) {
  Operands o;
  Func C = compute("C", {o.i, o.j}, sum(o.k, cast(DType::f32, o.H(o.i, o.k)) * o.B(o.k, o.j)));
  EXPECT_TRUE(C.def().is_sum_of_products());
  EXPECT_TRUE(C.def().is_sum_of_load_products());
  Func D = compute("D", {o.i, o.j}, sum(o.k, cast(DType::f32, o.H(o.i, o.k) * o.H(o.i, o.k))));
  EXPECT_TRUE(D.def().is_sum_of_products());
  EXPECT_TRUE(D.def().is_sum_of_load_products());
}

TEST(SumOfProducts, AFactorThatComputesFromALoadIsASumOfProductsOnly) {
  Operands o;
  Func C = compute("C", {o.i, o.j}, sum(o.k, o.A(o.i, o.k) * (o.B(o.k, o.j) + 1.0f)));
  EXPECT_TRUE(C.def().is_sum_of_products());
  EXPECT_FALSE(C.def().is_sum_of_load_products());
}

TEST(SumOfProducts, AFactorThatReadsNoMemoryIsNeither) {
  Operands o;
  Func C = compute("C", {o.i}, sum(o.k, o.A(o.i, o.k) * 2.0f));
  EXPECT_FALSE(C.def().is_sum_of_products());
  EXPECT_FALSE(C.def().is_sum_of_load_products());
}

TEST(SumOfProducts, OtherReductionsAndBodiesAreNeither) {
  Operands o;
  Func M = compute("M", {o.i, o.j}, maximum(o.k, o.A(o.i, o.k) * o.B(o.k, o.j)));
  Func S = compute("S", {o.i, o.j}, sum(o.k, o.A(o.i, o.k) + o.B(o.k, o.j)));
  Func P = compute("P", {o.i, o.j}, o.A(o.i, o.j) * o.B(o.i, o.j));
  for (const Func& f : {M, S, P}) {
    EXPECT_FALSE(f.def().is_sum_of_products()) << f.name();
    EXPECT_FALSE(f.def().is_sum_of_load_products()) << f.name();
  }
}

}  // namespace
}  // namespace cusched
