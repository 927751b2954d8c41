// matmul: C = A @ B (KernelBench level 1), square 4096 ("matmul") and
// (2048 x 8192) @ (8192 x 4096) ("matmul_rect").
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

namespace {

Problem matmul_problem(const std::string& name, const std::string& title, const SizeBindings& small,
                       const SizeBindings& bench) {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  Problem p;
  p.name = name;
  p.level = "1";
  p.title = title;
  p.torch_semantics = "torch.matmul(A, B)";
  p.notes = "A is (M, K), B is (K, N); FP32 accumulation.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", small}, {"bench", bench}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt},
              {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = 2.0 * Expr(M) * N * K;
  p.baseline_schedule = tiled_grid_steps("C", "i", "j");
  p.best_schedule = wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A");
  return p;
}

}  // namespace

Problem make_matmul() {
  return matmul_problem("matmul", "Square matrix multiplication C = A @ B", {{"M", 64}, {"N", 48}, {"K", 40}},
                        {{"M", 4096}, {"N", 4096}, {"K", 4096}});
}

Problem make_matmul_rect() {
  return matmul_problem("matmul_rect", "Rectangular matrix multiplication C = A @ B", {{"M", 37}, {"N", 45}, {"K", 29}},
                        {{"M", 2048}, {"N", 4096}, {"K", 8192}});
}

}  // namespace cusched
