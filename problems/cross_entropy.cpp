// cross_entropy: mean cross-entropy of logits against int64 class targets (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_cross_entropy() {
  Size N("N"), C("C");
  Tensor X("logits", DType::f32, {N, C}), T("targets", DType::i64, {N});
  Var i("i", N), o("o", 1);
  RVar k("k", C), r("r", N);
  Func Mx = compute("M", {i}, maximum(k, X(i, k)));
  Func S = compute("S", {i}, sum(k, exp(X(i, k) - Mx(i))));
  // Data-dependent load: the logit of the target class of row i.
  Func Nll = compute("Nll", {i}, Mx(i) + log(S(i)) - X(i, cast(DType::i32, T(i))));
  Func Total = compute("Total", {o}, sum(r, Nll(r)));
  Func Loss = compute("Loss", {o}, Total(o) / cast(DType::f32, Expr(N)));
  Problem p;
  p.name = "cross_entropy";
  p.level = "1";
  p.title = "Cross-entropy loss with integer class targets";
  p.torch_semantics = "F.cross_entropy(logits, targets)";
  p.notes =
      "Per row logsumexp(logits) - logits[target], then reduction='mean' over rows; no class weights, "
      "no ignore_index hits, no label smoothing; the scalar result is an output of shape (1). Targets are "
      "drawn from 0..4095, so every size has C = 4096 classes.";
  p.pipeline = Pipeline({Loss});
  p.sizes = {{"small", {{"N", 2}, {"C", 4096}}}, {"bench", {{"N", 32768}, {"C", 4096}}}};
  p.inputs = {{"logits", {"normal", 0, 1}, InputDistribution{"normal", 120, 4}},
              {"targets", {"randint", 0, 4095}, std::nullopt}};
  p.flops = 4.0 * Expr(N) * C;
  p.baseline_schedule = concat_steps({flat_grid_steps("M", {"i"}), flat_grid_steps("S", {"i"}),
                                      flat_grid_steps("Nll", {"i"}), nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Total", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Loss", "loop": "o", "axis": "blockIdx.x"}
  ])")});
  // One block of 128 threads per row: the row's max and sum of exp are block all-reduces
  // computed at the row (the second read of the 16 KB row comes from L1), each thread
  // reading 32 elements per pass, unrolled by 8; one block of 1024 threads takes the mean.
  // The sum of exp and the log use fast math (__expf, __logf).
  p.best_schedule = concat_steps({nlohmann::json::parse(R"([
    {"op": "split", "stage": "Nll", "loop": "i", "factor": 1, "outer": "io", "inner": "ii"},
    {"op": "bind", "stage": "Nll", "loop": "io", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "M", "consumer": "Nll", "loop": "ii"},
    {"op": "compute_at", "stage": "S", "consumer": "Nll", "loop": "ii"},
    {"op": "split", "stage": "M", "loop": "k", "factor": 1024, "outer": "ko", "inner": "kr"},
    {"op": "split", "stage": "M", "loop": "kr", "factor": 128, "outer": "ku", "inner": "kt"},
    {"op": "unroll", "stage": "M", "loop": "ku"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "kt", "kind": "block"},
    {"op": "split", "stage": "S", "loop": "k", "factor": 1024, "outer": "ko", "inner": "kr"},
    {"op": "split", "stage": "S", "loop": "kr", "factor": 128, "outer": "ku", "inner": "kt"},
    {"op": "unroll", "stage": "S", "loop": "ku"},
    {"op": "cross_thread_reduce", "stage": "S", "loop": "kt", "kind": "block"},
    {"op": "bind", "stage": "Loss", "loop": "o", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "Total", "consumer": "Loss", "loop": "o"},
    {"op": "split", "stage": "Total", "loop": "r", "factor": 1024, "outer": "ro", "inner": "rt"},
    {"op": "cross_thread_reduce", "stage": "Total", "loop": "rt", "kind": "block"}
  ])"),
                                  fast_math_steps({"S", "Nll"})});
  return p;
}

}  // namespace cusched
