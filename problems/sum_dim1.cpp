// Sum over dim 1 (KernelBench level 1): of a (B, D1, D2) tensor ("sum_dim1") and of
// a (16, 64, 256, 256) tensor ("sum_dim1_small").
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_sum_dim1() {
  Size B("B"), D1("D1"), D2("D2");
  Tensor X("X", DType::f32, {B, D1, D2});
  Var b("b", B), j("j", D2);
  RVar r("r", D1);
  Func S = compute("S", {b, j}, sum(r, X(b, r, j)));
  Problem p;
  p.name = "sum_dim1";
  p.level = "1";
  p.title = "Sum over dim 1 of a 3-D tensor";
  p.torch_semantics = "torch.sum(X, dim=1)";
  p.notes = "Output (B, D2) (keepdim=False); FP32 accumulation.";
  p.pipeline = Pipeline({S});
  p.sizes = {{"small", {{"B", 3}, {"D1", 17}, {"D2", 29}}}, {"bench", {{"B", 128}, {"D1", 4096}, {"D2", 4095}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 100, 1}}};
  p.flops = 1.0 * Expr(B) * D1 * D2;
  p.baseline_schedule = flat_grid_steps("S", {"b", "j"});
  // One block per b reads whole rows: 1024 threads x 4 adjacent columns, each step of r
  // staging 4 rows x 4 values in registers (cache_read register) so that all 16 loads go
  // out before the additions: argmax_dim1's best schedule, which reads the same tensor the
  // same way (faster than whole rows without the staging).
  p.best_schedule = middle_dim_register_steps("S", "X", 4, 4);
  return p;
}

Problem make_sum_dim1_small() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Var b("b", B), h("h", H), w("w", W);
  RVar rc("rc", C);
  Func S = compute("S", {b, h, w}, sum(rc, X(b, rc, h, w)));
  Problem p;
  p.name = "sum_dim1_small";
  p.level = "1";
  p.title = "Sum over dim 1 of a 4-D tensor";
  p.torch_semantics = "torch.sum(X, dim=1)";
  p.notes = "Output (B, H, W) (keepdim=False); FP32 accumulation.";
  p.pipeline = Pipeline({S});
  p.sizes = {{"small", {{"B", 2}, {"C", 5}, {"H", 7}, {"W", 9}}},
             {"bench", {{"B", 16}, {"C", 64}, {"H", 256}, {"W", 256}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 100, 1}}};
  p.flops = 1.0 * Expr(B) * C * H * W;
  p.baseline_schedule = flat_grid_steps("S", {"b", "h", "w"});
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "S", "loop": "w", "factor": 4, "outer": "wo", "inner": "wv"},
    {"op": "split", "stage": "S", "loop": "h", "factor": 4, "outer": "ho", "inner": "hi"},
    {"op": "reorder", "stage": "S", "loops": ["rc", "wv"]},
    {"op": "bind", "stage": "S", "loop": "b", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "S", "loop": "ho", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "S", "loop": "hi", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "S", "loop": "wo", "axis": "threadIdx.x"},
    {"op": "vectorize", "stage": "S", "loop": "wv"}
  ])");
  return p;
}

}  // namespace cusched
