// conv2d: 2-D convolution, kernel 3, stride 1, no padding, no bias (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_conv2d() {
  constexpr int kKernel = 3;
  Size N("N"), CI("CI"), CO("CO"), H("H"), W("W");
  Tensor X("X", DType::f32, {N, CI, H, W}), Wt("weight", DType::f32, {CO, CI, kKernel, kKernel});
  Var n("n", N), o("o", CO), oh("oh", Expr(H) - (kKernel - 1)), ow("ow", Expr(W) - (kKernel - 1));
  RVar rc("rc", CI), kh("kh", kKernel), kw("kw", kKernel);
  Func Y = compute("Y", {n, o, oh, ow}, sum({rc, kh, kw}, X(n, rc, Expr(oh) + kh, Expr(ow) + kw) * Wt(o, rc, kh, kw)));
  Problem p;
  p.name = "conv2d";
  p.level = "1";
  p.title = "Conv2d 3x3, stride 1, no padding, no bias";
  p.torch_semantics = "F.conv2d(X, weight)";
  p.notes = "Cross-correlation as in PyTorch; weight (CO, CI, 3, 3); output side H - 2; dilation 1, groups 1.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"N", 2}, {"CI", 3}, {"CO", 4}, {"H", 9}, {"W", 11}}},
             {"bench", {{"N", 16}, {"CI", 16}, {"CO", 128}, {"H", 1024}, {"W", 1024}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt}, {"weight", {"normal", 0, 0.1}, std::nullopt}};
  p.flops = 2.0 * Expr(N) * CO * (Expr(H) - 2) * (Expr(W) - 2) * CI * kKernel * kKernel;
  p.baseline_schedule = concat_steps({nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "n", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "o", "axis": "blockIdx.y"}
  ])"),
                                      flat_grid_steps("Y", {"oh", "ow"})});
  // Implicit GEMM on TF32 tensor cores with the output channels as the mma's m (so the
  // weights load with ldmatrix) and the output columns as n: per block one output row of
  // 128 columns x all 128 channels, 8 warps of 32 (o) x 64 (ow) accumulators, 2 blocks per
  // SM (launch bounds 256, 2). The reduction runs over rc in one chunk of 16 with kh and kw
  // as serial loops; at each (kh, kw) the 16 input rows (shifted by kw, rows padded to 136
  // so that the lanes' reads hit distinct banks) and the weights of that tap (staged
  // [o][rc], rc contiguous) are copied into shared memory, double-buffered with cp.async at
  // kw. The accumulators go through a padded shared tile (cache_write shared, 103 KB in
  // all) so that the output is written row by row, coalesced.
  p.best_schedule = concat_steps({conv_row_implicit_gemm_steps("Y", 2), nlohmann::json::parse(R"([
    {"stage": "Y", "op": "cache_write", "scope": "shared"}])")});
  return p;
}

}  // namespace cusched
