// relu: Y = max(X, 0) elementwise (KernelBench level 1), at a (16, 64, 256, 256) 4-D shape
// ("relu") and at KernelBench's 2-D shape ("relu_large").
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_relu() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Var b("b", B), c("c", C), h("h", H), w("w", W);
  Func Y = compute("Y", {b, c, h, w}, max(X(b, c, h, w), 0.0f));
  Problem p;
  p.name = "relu";
  p.level = "1";
  p.title = "ReLU on a 4-D tensor";
  p.torch_semantics = "torch.relu(X)";
  p.notes = "Elementwise; 67 M elements (268 MB in, 268 MB out).";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"B", 2}, {"C", 3}, {"H", 5}, {"W", 7}}},
             {"bench", {{"B", 16}, {"C", 64}, {"H", 256}, {"W", 256}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt}};
  p.flops = 1.0 * Expr(B) * C * H * W;
  p.baseline_schedule = flat_grid_steps("Y", {"b", "c", "h", "w"});
  p.best_schedule = vector4_grid_steps("Y", "b", "c", "h", "w");
  return p;
}

Problem make_relu_large() {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  Func Y = compute("Y", {i, j}, max(X(i, j), 0.0f));
  Problem p;
  p.name = "relu_large";
  p.level = "1";
  p.title = "ReLU on KernelBench's (4096, 393216) tensor";
  p.torch_semantics = "torch.relu(X)";
  p.notes = "Elementwise; 1.6 G elements (6.4 GB in, 6.4 GB out).";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"R", 7}, {"D", 301}}}, {"bench", {{"R", 4096}, {"D", 393216}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt}};
  p.flops = 1.0 * Expr(R) * D;
  p.baseline_schedule = flat_grid_steps("Y", {"i", "j"});
  // One float4 per thread, rows on blockIdx.y, no division or modulo in the index (the
  // flat grid's index needs both).
  p.best_schedule = row_vector4_grid_steps("Y", "i", "j", 256);
  return p;
}

}  // namespace cusched
