// bmm: batched matrix multiplication C[b] = A[b] @ B[b] (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_bmm() {
  Size Bt("BATCH"), M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {Bt, M, K}), B("B", DType::f32, {Bt, K, N});
  Var b("b", Bt), i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {b, i, j}, sum(k, A(b, i, k) * B(b, k, j)));
  Problem p;
  p.name = "bmm";
  p.level = "1";
  p.title = "Batched matrix multiplication C = torch.bmm(A, B)";
  p.torch_semantics = "torch.bmm(A, B)";
  p.notes = "A is (BATCH, M, K), B is (BATCH, K, N); one independent product per batch entry.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"BATCH", 3}, {"M", 17}, {"N", 23}, {"K", 19}}},
             {"bench", {{"BATCH", 128}, {"M", 512}, {"N", 2048}, {"K", 1024}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt},
              {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = 2.0 * Expr(Bt) * M * N * K;
  p.baseline_schedule = tiled_grid_steps("C", "i", "j", "b");
  p.best_schedule = wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A", "b");
  return p;
}

}  // namespace cusched
