// conv2d_relu_bias: relu(conv2d(X, W, conv_bias)) + bias (KernelBench level 2).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_conv2d_relu_bias() {
  constexpr int kKernel = 3;
  Size N("N"), CI("CI"), CO("CO"), H("H"), W("W");
  Tensor X("X", DType::f32, {N, CI, H, W}), Wt("weight", DType::f32, {CO, CI, kKernel, kKernel});
  Tensor ConvBias("conv_bias", DType::f32, {CO}), Bias("bias", DType::f32, {CO, 1, 1});
  Var n("n", N), o("o", CO), oh("oh", Expr(H) - (kKernel - 1)), ow("ow", Expr(W) - (kKernel - 1));
  RVar rc("rc", CI), kh("kh", kKernel), kw("kw", kKernel);
  Func Cv =
      compute("Conv", {n, o, oh, ow}, sum({rc, kh, kw}, X(n, rc, Expr(oh) + kh, Expr(ow) + kw) * Wt(o, rc, kh, kw)));
  Func Y = compute("Y", {n, o, oh, ow}, max(Cv(n, o, oh, ow) + ConvBias(o), 0.0f) + Bias(o, 0, 0));
  Problem p;
  p.name = "conv2d_relu_bias";
  p.level = "2";
  p.title = "Conv2d 3x3 (with its bias) + ReLU + bias add";
  p.torch_semantics = "torch.relu(F.conv2d(X, weight, conv_bias)) + bias";
  p.notes =
      "nn.Conv2d(CI, CO, 3) with its own bias, stride 1, no padding; then ReLU; then a separate "
      "bias of shape (CO, 1, 1) broadcast over N, H and W.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"N", 2}, {"CI", 3}, {"CO", 4}, {"H", 9}, {"W", 11}}},
             {"bench", {{"N", 128}, {"CI", 64}, {"CO", 128}, {"H", 128}, {"W", 128}}}};
  p.inputs = {{"X", {"normal", 0, 1}, std::nullopt},
              {"weight", {"normal", 0, 0.05}, std::nullopt},
              {"conv_bias", {"normal", 0, 1}, std::nullopt},
              {"bias", {"normal", 0, 1}, std::nullopt}};
  Expr outputs = 1.0 * Expr(N) * CO * (Expr(H) - 2) * (Expr(W) - 2);
  p.flops = 2.0 * outputs * CI * kKernel * kKernel + 3.0 * outputs;
  p.baseline_schedule =
      concat_steps({nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Conv", "loop": "n", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Conv", "loop": "o", "axis": "blockIdx.y"}
  ])"),
                    flat_grid_steps("Conv", {"oh", "ow"}), flat_grid_steps("Y", {"n", "o", "oh", "ow"})});
  // TF32 implicit GEMM for the convolution with the output channels as the mma's m (weights
  // through ldmatrix) and the output columns as n: per block one output row (126 of 128
  // columns) x all 128 channels, 8 warps of 32 (o) x 64 (ow), 2 blocks per SM. rc runs in
  // chunks of 16 with kh and kw as serial loops inside; at each (kh, kw) the chunk's input
  // rows (shifted by kw, padded to 136) and that tap's weights ([o][rc]) are staged with a
  // 3-buffer cp.async pipeline at kw; the accumulators are stored from registers. A second
  // kernel adds the biases and applies ReLU with float4 accesses (faster than storing the
  // accumulators through a shared output tile).
  p.best_schedule = concat_steps({conv_row_implicit_gemm_steps("Conv", 3), nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "oh", "inner": "ow", "fused": "hw"},
    {"op": "fuse", "stage": "Y", "outer": "n", "inner": "o", "fused": "no"},
    {"op": "split", "stage": "Y", "loop": "hw", "factor": 4, "outer": "hwo", "inner": "hwv"},
    {"op": "split", "stage": "Y", "loop": "hwo", "factor": 256, "outer": "hb", "inner": "ht"},
    {"op": "bind", "stage": "Y", "loop": "no", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "hb", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "ht", "axis": "threadIdx.x"},
    {"op": "vectorize", "stage": "Y", "loop": "hwv"}
  ])")});
  return p;
}

}  // namespace cusched
