// matvec: matrix-vector product C = A @ B with B of shape (K, 1) (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_matvec() {
  Size M("M"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, 1});
  Var i("i", M), j("j", 1);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  Problem p;
  p.name = "matvec";
  p.level = "1";
  p.title = "Matrix-vector multiplication C = A @ B, B a column";
  p.torch_semantics = "torch.matmul(A, B)";
  p.notes = "A is (M, K), B is (K, 1), C is (M, 1); memory-bound on A.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"M", 37}, {"K", 91}}}, {"bench", {{"M", 2048}, {"K", 1048576}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt}, {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = [](const SizeBindings& s) { return 2.0 * s.at("M") * s.at("K"); };
  p.baseline_schedule = flat_grid_steps("C", {"i", "j"}, 64);
  p.best_schedule = p.baseline_schedule;
  return p;
}

}  // namespace cusched
