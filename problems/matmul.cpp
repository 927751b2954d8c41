// matmul: C = A @ B (KernelBench level 1, square 4096).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_matmul() {
  Size M("M"), N("N"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  Problem p;
  p.name = "matmul";
  p.level = "1";
  p.title = "Square matrix multiplication C = A @ B";
  p.torch_semantics = "torch.matmul(A, B)";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"M", 64}, {"N", 48}, {"K", 40}}}, {"bench", {{"M", 4096}, {"N", 4096}, {"K", 4096}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt}, {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = [](const SizeBindings& s) { return 2.0 * s.at("M") * s.at("N") * s.at("K"); };
  p.baseline_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 16},
    {"op": "split", "stage": "C", "loop": "j", "factor": 16},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ii", "ji"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"}
  ])");
  p.best_schedule = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {128, 128, 64, 64, 16, "tf32", 4});
  return p;
}

}  // namespace cusched
