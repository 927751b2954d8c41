// rmsnorm: RMS normalisation over dim 1 (the channels) of (B, C, H, W), no affine
// weight (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_rmsnorm() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Var b("b", B), c("c", C), h("h", H), w("w", W);
  RVar rc("rc", C);
  Func SumSq = compute("SumSq", {b, h, w}, sum(rc, X(b, rc, h, w) * X(b, rc, h, w)));
  Expr mean_sq = SumSq(b, h, w) / cast(DType::f32, Expr(C));
  Func Y = compute("Y", {b, c, h, w}, X(b, c, h, w) * rsqrt(mean_sq + 1e-5f));
  Problem p;
  p.name = "rmsnorm";
  p.level = "1";
  p.title = "RMSNorm over the channel dimension";
  p.torch_semantics = "X / torch.sqrt(torch.mean(X ** 2, dim=1, keepdim=True) + 1e-5)";
  p.notes =
      "y = x / sqrt(mean(x^2 over dim 1) + eps), eps = 1e-5 inside the square root; no weight. The algorithm "
      "multiplies by rsqrt(mean + eps), the same value, so that a kernel computes one reciprocal square root per "
      "(b, h, w) instead of a division per element.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"B", 2}, {"C", 5}, {"H", 3}, {"W", 7}}},
             {"bench", {{"B", 112}, {"C", 64}, {"H", 512}, {"W", 512}}}};
  // Adversarial: values so small that eps dominates the mean square.
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 0, 1e-3}}};
  p.flops = 4.0 * Expr(B) * C * H * W;
  p.baseline_schedule =
      concat_steps({flat_grid_steps("SumSq", {"b", "h", "w"}), flat_grid_steps("Y", {"b", "c", "h", "w"})});
  // One kernel: a thread per (b, h, w), 256 consecutive w per block (coalesced along w).
  // The thread's 64 channel values are loaded once into registers (cache_read register,
  // shared with the sum of squares computed at the thread loop), so the sum of squares
  // and the 64 normalised outputs read the registers: 7.5 GB read once, 7.5 GB written.
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "w", "factor": 256, "outer": "wo", "inner": "wi"},
    {"op": "reorder", "stage": "Y", "loops": ["h", "wo", "wi", "c"]},
    {"op": "bind", "stage": "Y", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "h", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "wo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "wi", "axis": "threadIdx.x"},
    {"op": "unroll", "stage": "Y", "loop": "c"},
    {"op": "compute_at", "stage": "SumSq", "consumer": "Y", "loop": "wi"},
    {"op": "unroll", "stage": "SumSq", "loop": "rc"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "register", "at": "wi", "share": true}
  ])");
  return p;
}

}  // namespace cusched
