// gemm_add_relu: relu(X @ W^T + bias), nn.Linear without its own bias (KernelBench level 2).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_gemm_add_relu() {
  Size Bn("BATCH"), IN("IN"), OUT("OUT");
  Tensor X("X", DType::f32, {Bn, IN}), Wt("weight", DType::f32, {OUT, IN}), Bias("bias", DType::f32, {OUT});
  Var i("i", Bn), j("j", OUT);
  RVar k("k", IN);
  Func G = compute("G", {i, j}, sum(k, X(i, k) * Wt(j, k)));
  Func Y = compute("Y", {i, j}, max(G(i, j) + Bias(j), 0.0f));
  Problem p;
  p.name = "gemm_add_relu";
  p.level = "2";
  p.title = "Linear (no bias) + bias add + ReLU";
  p.torch_semantics = "torch.relu(F.linear(X, weight) + bias)";
  p.notes =
      "nn.Linear semantics: weight is (OUT, IN), so the product is X @ weight.T; bias (OUT) broadcasts over rows.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"BATCH", 5}, {"IN", 37}, {"OUT", 23}}},
             {"bench", {{"BATCH", 1024}, {"IN", 8192}, {"OUT", 8192}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt},
              {"weight", {"normal", 0, 0.01}, std::nullopt},
              {"bias", {"normal", 0, 1}, std::nullopt}};
  p.flops = 2.0 * Expr(Bn) * OUT * IN + 2.0 * Expr(Bn) * OUT;
  p.baseline_schedule = concat_steps({tiled_grid_steps("G", "i", "j"), flat_grid_steps("Y", {"i", "j"})});
  p.best_schedule = concat_steps({linear_wgmma_steps(), flat_grid_steps("Y", {"i", "j"})});
  return p;
}

}  // namespace cusched
