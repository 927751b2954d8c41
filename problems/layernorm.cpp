// LayerNorm over the last three dims of (B, C, H, W), affine weight and bias as inputs.
// The statistics are shifted moments, so that x is read once for both of them.
#include "dsl/dsl.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_layernorm() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Tensor G("weight", DType::f32, {C, H, W}), Bt("bias", DType::f32, {C, H, W});
  Var b("b", B), c("c", C), h("h", H), w("w", W), m("m", make_int(2));
  RVar rc("rc", C), rh("rh", H), rw("rw", W);
  Expr n = cast(DType::f32, Expr(C) * Expr(H) * Expr(W));
  // Each row is shifted by one of its own samples, s = x(b, 0, 0, 0): d = x - s.
  Expr d = X(b, rc, rh, rw) - X(b, 0, 0, 0);
  // Two sums from one read of x: Moments(b, 0) = sum d, Moments(b, 1) = sum d*d.
  Func Moments = compute("Moments", {b, m}, sum({rc, rh, rw}, select(Expr(m) == 0, d, d * d)));
  Expr mean_d = Moments(b, 0) / n;
  Expr mean = X(b, 0, 0, 0) + mean_d;
  Expr var = Moments(b, 1) / n - mean_d * mean_d;
  Func Y = compute("Y", {b, c, h, w}, (X(b, c, h, w) - mean) * rsqrt(var + 1e-5f) * G(c, h, w) + Bt(c, h, w));
  Problem p;
  p.name = "layernorm";
  p.level = "1";
  p.title = "LayerNorm over the last three dimensions";
  p.torch_semantics = "torch.nn.functional.layer_norm(X, X.shape[1:], weight, bias, eps=1e-5)";
  p.notes =
      "Biased variance, eps = 1e-5, elementwise affine weight and bias given as inputs. The statistics come from one "
      "read of x as two sums per row of N elements, Moments(b, m): with the row's shift s = x(b, 0, 0, 0) and "
      "d = x - s, S1 = sum d and S2 = sum d^2. Then mean = s + S1/N and var = S2/N - (S1/N)^2, identities for any "
      "shift, so the formulation is exact. It is also robust: s is a sample of the row, so d is centred within a few "
      "standard deviations of zero; neither sum grows with the row's mean (a sum of x itself would, and an f32 sum of "
      "millions of values near 1000 rounds away the mean's last digits), and S2/N - (S1/N)^2 does not cancel, unlike "
      "E[x^2] - E[x]^2 on the adversarial large-mean, small-spread inputs.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"B", 2}, {"C", 8}, {"H", 6}, {"W", 8}}},
             {"bench", {{"B", 16}, {"C", 64}, {"H", 256}, {"W", 256}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 1000, 0.5}},
              {"weight", {"normal", 1, 0.1}, std::nullopt},
              {"bias", {"normal", 0, 0.1}, std::nullopt}};
  p.flops = 8.0 * Expr(B) * C * H * W;
  // One block per statistic, its 4 M-element sum split over 256 threads: a single
  // thread's f32 sum of a whole row loses the variance at the bench size.
  p.baseline_schedule = nlohmann::json::parse(R"([
    {"op": "fuse", "stage": "Moments", "outer": "b", "inner": "m", "fused": "bm"},
    {"op": "bind", "stage": "Moments", "loop": "bm", "axis": "blockIdx.x"},
    {"op": "fuse", "stage": "Moments", "outer": "rc", "inner": "rh", "fused": "rch"},
    {"op": "fuse", "stage": "Moments", "outer": "rch", "inner": "rw", "fused": "r"},
    {"op": "split", "stage": "Moments", "loop": "r", "factor": 256, "outer": "ro", "inner": "rt"},
    {"op": "cross_thread_reduce", "stage": "Moments", "loop": "rt", "kind": "block"},
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w", "fused": "hw"},
    {"op": "split", "stage": "Y", "loop": "hw", "factor": 256},
    {"op": "bind", "stage": "Y", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "c", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "hwo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "hwi", "axis": "threadIdx.x"}
  ])");
  // Two kernels. Kernel 1: each row's channels in 8 groups of 8, one block of 1024 threads
  // per (group, row) = 128 blocks; each thread owns 4 consecutive w (one float4 load, its
  // lanes summed in order) of 64 w-quads x 16 rows, walks its group's channels and h in
  // steps of 16 rows (8 loads unrolled) and keeps the two sums from one load of x per
  // element; a block reduction leaves 8 partial moments per row. X is loaded under an L2
  // evict_last policy for 5% of its lines. Kernel 2: the normalisation over (channel,
  // h-chunk) tiles issued in reverse (it reads first what kernel 1 read last), each block
  // first combining its 16 rows' partials (32 threads, the 8 loads in flight at once),
  // then each thread one float4 of a row chunk looping over the 16 rows (4 unrolled), so
  // that weight and bias are loaded once per thread. Two kernels with 8 partials per row
  // are faster than three (64 partials per row and a kernel combining them) and than 16
  // or 32 partials per row.
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Moments", "loop": "rc", "parts": 8, "outer": "rcg", "inner": "rcq"},
    {"op": "rfactor", "stage": "Moments", "loop": "rcg", "name": "Moments_rf"},
    {"op": "fuse", "stage": "Moments_rf", "outer": "rcg", "inner": "b", "fused": "gb"},
    {"op": "bind", "stage": "Moments_rf", "loop": "gb", "axis": "blockIdx.x"},
    {"op": "split", "stage": "Moments_rf", "loop": "rw", "factor": 4, "outer": "rwo", "inner": "rwv"},
    {"op": "split", "stage": "Moments_rf", "loop": "rh", "factor": 16, "outer": "rho", "inner": "rht"},
    {"op": "split", "stage": "Moments_rf", "loop": "rho", "factor": 8, "outer": "rhoo", "inner": "rhu"},
    {"op": "reorder", "stage": "Moments_rf", "loops": ["rcq", "rhoo", "rhu", "rht", "rwo", "m", "rwv"]},
    {"op": "fuse", "stage": "Moments_rf", "outer": "rht", "inner": "rwo", "fused": "rt"},
    {"op": "cross_thread_reduce", "stage": "Moments_rf", "loop": "rt", "kind": "block"},
    {"op": "unroll", "stage": "Moments_rf", "loop": "rhu"},
    {"op": "unroll", "stage": "Moments_rf", "loop": "m"},
    {"op": "vectorize", "stage": "Moments_rf", "loop": "rwv"},
    {"op": "l2_hint", "stage": "Moments_rf", "source": "X", "policy": "evict_last", "percent": 5},
    {"op": "split", "stage": "Y", "loop": "w", "factor": 4, "outer": "wo", "inner": "wv"},
    {"op": "split", "stage": "Y", "loop": "h", "factor": 4, "outer": "ho", "inner": "hi"},
    {"op": "split", "stage": "Y", "loop": "b", "factor": 4, "outer": "bo", "inner": "bu"},
    {"op": "reorder", "stage": "Y", "loops": ["c", "ho", "hi", "wo", "bo", "bu", "wv"]},
    {"op": "reverse", "stage": "Y", "loop": "c", "name": "c_rev"},
    {"op": "reverse", "stage": "Y", "loop": "ho", "name": "ho_rev"},
    {"op": "bind", "stage": "Y", "loop": "ho_rev", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "c_rev", "axis": "blockIdx.y"},
    {"op": "fuse", "stage": "Y", "outer": "hi", "inner": "wo", "fused": "t"},
    {"op": "bind", "stage": "Y", "loop": "t", "axis": "threadIdx.x"},
    {"op": "unroll", "stage": "Y", "loop": "bu"},
    {"op": "vectorize", "stage": "Y", "loop": "wv"},
    {"op": "compute_at", "stage": "Moments", "consumer": "Y", "loop": "ho_rev"},
    {"op": "fuse", "stage": "Moments", "outer": "b", "inner": "m", "fused": "bm"},
    {"op": "bind", "stage": "Moments", "loop": "bm", "axis": "threadIdx.x"},
    {"op": "unroll", "stage": "Moments", "loop": "rcg"}
  ])");
  return p;
}

}  // namespace cusched
