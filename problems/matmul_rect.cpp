// matmul_rect: C = A @ B with a rectangular shape (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_matmul_rect() {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  Problem p;
  p.name = "matmul_rect";
  p.level = "1";
  p.title = "Rectangular matrix multiplication C = A @ B";
  p.torch_semantics = "torch.matmul(A, B)";
  p.notes = "A is (M, K), B is (K, N); FP32 accumulation.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"M", 37}, {"N", 45}, {"K", 29}}}, {"bench", {{"M", 2048}, {"N", 4096}, {"K", 8192}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt}, {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = [](const SizeBindings& s) { return 2.0 * s.at("M") * s.at("N") * s.at("K"); };
  p.baseline_schedule = tiled_grid_steps("C", "i", "j");
  p.best_schedule = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {128, 128, 64, 64, 16, "tf32", 4});
  return p;
}

}  // namespace cusched
