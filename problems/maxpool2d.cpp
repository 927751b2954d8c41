// maxpool2d: 2-D max pooling, kernel 4, stride 1, padding 1 (KernelBench level 1).
#include <limits>

#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_maxpool2d() {
  constexpr int kKernel = 4, kStride = 1, kPad = 1;
  Size N("N"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {N, C, H, W});
  Expr OH = (Expr(H) + 2 * kPad - kKernel) / kStride + 1, OW = (Expr(W) + 2 * kPad - kKernel) / kStride + 1;
  Var n("n", N), c("c", C), oh("oh", OH), ow("ow", OW);
  RVar kh("kh", kKernel), kw("kw", kKernel);
  Expr ih = Expr(oh) * kStride + kh - kPad, iw = Expr(ow) * kStride + kw - kPad;
  Expr inside = ih >= 0 && ih < Expr(H) && iw >= 0 && iw < Expr(W);
  // The load index is clamped into the tensor so that it is legal even where the
  // padding value is selected.
  Expr ih_c = max(min(ih, Expr(H) - 1), 0), iw_c = max(min(iw, Expr(W) - 1), 0);
  Expr pad_value = make_float(-std::numeric_limits<double>::infinity());
  Func Y = compute("Y", {n, c, oh, ow}, maximum({kh, kw}, select(inside, X(n, c, ih_c, iw_c), pad_value)));
  Problem p;
  p.name = "maxpool2d";
  p.level = "1";
  p.title = "MaxPool2d, kernel 4, stride 1, padding 1";
  p.torch_semantics = "F.max_pool2d(X, kernel_size=4, stride=1, padding=1)";
  p.notes = "Output side (H + 2*1 - 4) / 1 + 1 = H - 1; padding contributes -inf; dilation 1, ceil_mode False.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 11}}},
             {"bench", {{"N", 32}, {"C", 64}, {"H", 512}, {"W", 512}}}};
  // Adversarial: every value negative, so a padding value of 0 instead of -inf shows.
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"uniform", -2, -1}}};
  p.flops = 1.0 * Expr(N) * C * OH * OW * kKernel * kKernel;
  p.baseline_schedule = flat_grid_steps("Y", {"n", "c", "oh", "ow"});
  // One block per 7 output rows of one (n, c) plane, 511 threads (73 x 7) with one output
  // column each, so a warp reads and writes 32 adjacent columns; every thread computes its
  // column's 7 rows with the 4 x 4 window unrolled. 511 = 7 x 73, so no split leaves a
  // tail: no bounds guard wraps the loads, which stay branch-free predicated loads.
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Y", "outer": "n", "inner": "c", "fused": "nc"},
    {"op": "split", "stage": "Y", "loop": "ow", "factor": 73, "outer": "owy", "inner": "owx"},
    {"op": "split", "stage": "Y", "loop": "oh", "factor": 7, "outer": "oho", "inner": "ohi"},
    {"op": "reorder", "stage": "Y", "loops": ["nc", "oho", "owy", "owx", "ohi", "kh", "kw"]},
    {"op": "bind", "stage": "Y", "loop": "nc", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "oho", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "owy", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "owx", "axis": "threadIdx.x"},
    {"op": "unroll", "stage": "Y", "loop": "ohi"},
    {"op": "unroll", "stage": "Y", "loop": "kh"},
    {"op": "unroll", "stage": "Y", "loop": "kw"}
  ])");
  return p;
}

}  // namespace cusched
