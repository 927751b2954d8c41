// gemm_scale_leakyrelu: leaky_relu((X @ W^T + b) * 2.0, 0.1), nn.Linear with bias (KernelBench level 2).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_gemm_scale_leakyrelu() {
  Size Bn("BATCH"), IN("IN"), OUT("OUT");
  Tensor X("X", DType::f32, {Bn, IN}), Wt("weight", DType::f32, {OUT, IN}), Bias("bias", DType::f32, {OUT});
  Var i("i", Bn), j("j", OUT);
  RVar k("k", IN);
  Func G = compute("G", {i, j}, sum(k, X(i, k) * Wt(j, k)));
  Expr v = (G(i, j) + Bias(j)) * 2.0f;
  Func Y = compute("Y", {i, j}, select(v >= 0.0f, v, v * 0.1f));
  Problem p;
  p.name = "gemm_scale_leakyrelu";
  p.level = "2";
  p.title = "Linear + multiply by 2.0 + LeakyReLU(0.1)";
  p.torch_semantics = "F.leaky_relu(F.linear(X, weight, bias) * 2.0, negative_slope=0.1)";
  p.notes = "nn.Linear semantics: weight is (OUT, IN), bias (OUT); multiplier 2.0; negative_slope 0.1.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"BATCH", 5}, {"IN", 37}, {"OUT", 23}}},
             {"bench", {{"BATCH", 1024}, {"IN", 8192}, {"OUT", 8192}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt},
              {"weight", {"normal", 0, 0.01}, std::nullopt},
              {"bias", {"normal", 0, 1}, std::nullopt}};
  p.flops = 2.0 * Expr(Bn) * OUT * IN + 3.0 * Expr(Bn) * OUT;
  p.baseline_schedule = concat_steps({tiled_grid_steps("G", "i", "j"), flat_grid_steps("Y", {"i", "j"})});
  p.best_schedule = concat_steps({linear_wgmma_steps(), flat_grid_steps("Y", {"i", "j"})});
  return p;
}

}  // namespace cusched
