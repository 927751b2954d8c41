// gemm_gelu_softmax: softmax(gelu(X @ W^T + b), dim=1), nn.Linear with bias (KernelBench level 2).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_gemm_gelu_softmax() {
  Size Bn("BATCH"), IN("IN"), OUT("OUT");
  Tensor X("X", DType::f32, {Bn, IN}), Wt("weight", DType::f32, {OUT, IN}), Bias("bias", DType::f32, {OUT});
  Var i("i", Bn), j("j", OUT);
  RVar k("k", IN), c("c", OUT);
  Func G = compute("G", {i, j}, sum(k, X(i, k) * Wt(j, k)));
  Expr lin = G(i, j) + Bias(j);
  Func A = compute("A", {i, j}, 0.5f * lin * (1.0f + erf(lin * 0.70710678118654752f)));
  Func Mx = compute("M", {i}, maximum(c, A(i, c)));
  Func S = compute("S", {i}, sum(c, exp(A(i, c) - Mx(i))));
  Func Y = compute("Y", {i, j}, exp(A(i, j) - Mx(i)) / S(i));
  Problem p;
  p.name = "gemm_gelu_softmax";
  p.level = "2";
  p.title = "Linear + GELU (erf form) + softmax over dim 1";
  p.torch_semantics = "torch.softmax(F.gelu(F.linear(X, weight, bias)), dim=1)";
  p.notes =
      "nn.Linear semantics: weight is (OUT, IN), bias (OUT); exact GELU (approximate='none'); "
      "stable softmax over the OUT dimension.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"BATCH", 5}, {"IN", 37}, {"OUT", 23}}},
             {"bench", {{"BATCH", 1024}, {"IN", 8192}, {"OUT", 8192}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt},
              {"weight", {"normal", 0, 0.01}, std::nullopt},
              {"bias", {"normal", 0, 1}, InputDistribution{"normal", 100, 1}}};
  p.flops = 2.0 * Expr(Bn) * OUT * IN + 12.0 * Expr(Bn) * OUT;
  p.baseline_schedule =
      concat_steps({tiled_grid_steps("G", "i", "j"), flat_grid_steps("A", {"i", "j"}), flat_grid_steps("M", {"i"}, 64),
                    flat_grid_steps("S", {"i"}, 64), flat_grid_steps("Y", {"i", "j"})});
  // The GEMM on warpgroup TF32 tensor cores as gemm_add_relu's (linear_wgmma_steps) into G; then one kernel,
  // one 1024-thread block per row: bias + GELU inlined, the row max and the row sum
  // block-reduced into shared memory (compute_at), and the normalised row written with
  // float4 stores (the 32 MB G stays in L2 between its three reads).
  p.best_schedule = concat_steps({linear_wgmma_steps(), nlohmann::json::parse(R"([
    {"op": "compute_inline", "stage": "A"},
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.x"},
    {"op": "split", "stage": "Y", "loop": "j", "factor": 4096, "outer": "jo", "inner": "jr"},
    {"op": "split", "stage": "Y", "loop": "jr", "factor": 4, "outer": "jt", "inner": "jv"},
    {"op": "bind", "stage": "Y", "loop": "jt", "axis": "threadIdx.x"},
    {"op": "vectorize", "stage": "Y", "loop": "jv"},
    {"op": "compute_at", "stage": "M", "consumer": "Y", "loop": "i"},
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "i"},
    {"op": "split", "stage": "M", "loop": "c", "factor": 1024, "outer": "co", "inner": "ct"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ct", "kind": "block"},
    {"op": "split", "stage": "S", "loop": "c", "factor": 1024, "outer": "co", "inner": "ct"},
    {"op": "cross_thread_reduce", "stage": "S", "loop": "ct", "kind": "block"}
  ])")});
  return p;
}

}  // namespace cusched
