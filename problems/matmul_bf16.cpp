// matmul_bf16: C = A @ B with bf16 operands and a bf16 result (PyTorch's torch.matmul on
// bf16 tensors), square 4096: the product summed in f32 (stage S) and rounded once (C).
#include "dsl/dsl.h"
#include "problems/automatic_baseline.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_matmul_bf16() {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::bf16, {M, K}), B("B", DType::bf16, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func S = compute("S", {i, j}, sum(k, cast(DType::f32, A(i, k)) * cast(DType::f32, B(k, j))));
  Func C = compute("C", {i, j}, cast(DType::bf16, S(i, j)));
  Problem p;
  p.name = "matmul_bf16";
  p.level = "1";
  p.title = "Square matrix multiplication C = A @ B in bf16";
  p.torch_semantics = "torch.matmul(A, B)";
  p.notes = "A (M, K) and B (K, N) are bf16; the products are summed in f32 and C is rounded to bf16 once.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"M", 64}, {"N", 48}, {"K", 40}}}, {"bench", {{"M", 4096}, {"N", 4096}, {"K", 4096}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt}, {"B", {"uniform", 0, 1}, std::nullopt}};
  p.flops = 2.0 * Expr(M) * N * K;
  p.baseline_schedule = automatic_baseline(p.pipeline);
  // The sum on warpgroup tensor cores (bf16 wgmma, C's transpose: m = j, n = i), its
  // copies on the tensor memory accelerator, and the rounding folded into its stores.
  p.best_schedule = wgmma_tile_steps("S", "j", "i", "k", "B", 0, "A", "", 256, 2, 4, "bf16", "tensor");
  p.best_schedule.push_back({{"op", "fuse_epilogue"}, {"stage", "C"}});
  return p;
}

}  // namespace cusched
