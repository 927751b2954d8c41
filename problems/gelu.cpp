// gelu: Y = GELU(X) in its exact erf form (KernelBench level 1), at a (16, 64, 256, 256) 4-D
// shape ("gelu") and at KernelBench's 2-D shape ("gelu_large").
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

namespace {

// 0.5 * x * (1 + erf(x / sqrt(2))), torch.nn.functional.gelu with approximate='none'.
Expr gelu_of(const Expr& x) { return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f)); }

}  // namespace

Problem make_gelu() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Var b("b", B), c("c", C), h("h", H), w("w", W);
  Func Y = compute("Y", {b, c, h, w}, gelu_of(X(b, c, h, w)));
  Problem p;
  p.name = "gelu";
  p.level = "1";
  p.title = "GELU (erf form) on a 4-D tensor";
  p.torch_semantics = "F.gelu(X)";
  p.notes = "Exact GELU, approximate='none': 0.5 * x * (1 + erf(x / sqrt(2))), not the tanh approximation.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"B", 2}, {"C", 3}, {"H", 5}, {"W", 7}}},
             {"bench", {{"B", 16}, {"C", 64}, {"H", 256}, {"W", 256}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 0, 8}}};
  p.flops = 5.0 * Expr(B) * C * H * W;
  p.baseline_schedule = flat_grid_steps("Y", {"b", "c", "h", "w"});
  p.best_schedule = vector4_grid_steps("Y", "b", "c", "h", "w");
  return p;
}

Problem make_gelu_large() {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  Func Y = compute("Y", {i, j}, gelu_of(X(i, j)));
  Problem p;
  p.name = "gelu_large";
  p.level = "1";
  p.title = "GELU (erf form) on KernelBench's (4096, 393216) tensor";
  p.torch_semantics = "F.gelu(X)";
  p.notes = "Exact GELU, approximate='none': 0.5 * x * (1 + erf(x / sqrt(2))); 1.6 G elements.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"R", 7}, {"D", 301}}}, {"bench", {{"R", 4096}, {"D", 393216}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 0, 8}}};
  p.flops = 5.0 * Expr(R) * D;
  p.baseline_schedule = flat_grid_steps("Y", {"i", "j"});
  // One float4 per thread, rows on blockIdx.y, no division or modulo in the index (the
  // flat grid's index needs both).
  p.best_schedule = row_vector4_grid_steps("Y", "i", "j", 256);
  return p;
}

}  // namespace cusched
