// mse_loss: mean squared error over all elements, a scalar (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_mse_loss() {
  Size R("R"), D("D");
  Tensor P("predictions", DType::f32, {R, D}), T("targets", DType::f32, {R, D});
  Var i("i", R), o("o", 1);
  RVar j("j", D), r("r", R);
  Expr diff = P(i, j) - T(i, j);
  Func RowSum = compute("RowSum", {i}, sum(j, diff * diff));
  Func Total = compute("Total", {o}, sum(r, RowSum(r)));
  Func Loss = compute("Loss", {o}, Total(o) / (cast(DType::f32, Expr(R)) * cast(DType::f32, Expr(D))));
  Problem p;
  p.name = "mse_loss";
  p.level = "1";
  p.title = "Mean squared error loss";
  p.torch_semantics = "torch.mean((predictions - targets) ** 2)";
  p.notes = "reduction='mean' over every element (F.mse_loss's default); the scalar result is an output of shape (1).";
  p.pipeline = Pipeline({Loss});
  p.sizes = {{"small", {{"R", 13}, {"D", 77}}}, {"bench", {{"R", 32768}, {"D", 32768}}}};
  p.inputs = {{"predictions", {"normal", 0, 1}, std::nullopt}, {"targets", {"normal", 0, 1}, std::nullopt}};
  p.flops = 3.0 * Expr(R) * D;
  p.baseline_schedule = concat_steps({flat_grid_steps("RowSum", {"i"}), nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Total", "loop": "o", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Loss", "loop": "o", "axis": "blockIdx.x"}
  ])")});
  // One block of 512 threads per row (32768 blocks): both rows stream through shared
  // memory in 8 KB chunks with 16-byte cp.async, four chunks in flight; each thread sums
  // 4 squared differences per chunk, then a block all-reduce. A single block of 1024
  // threads sums the 32768 row sums inside the Loss kernel.
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "RowSum", "loop": "j", "factor": 2048, "outer": "jo", "inner": "jr"},
    {"op": "split", "stage": "RowSum", "loop": "jr", "factor": 512, "outer": "ju", "inner": "jt"},
    {"op": "bind", "stage": "RowSum", "loop": "i", "axis": "blockIdx.x"},
    {"op": "unroll", "stage": "RowSum", "loop": "ju"},
    {"op": "cross_thread_reduce", "stage": "RowSum", "loop": "jt", "kind": "block"},
    {"op": "cache_read", "stage": "RowSum", "source": "predictions", "scope": "shared", "at": "jo"},
    {"op": "cache_read", "stage": "RowSum", "source": "targets", "scope": "shared", "at": "jo"},
    {"op": "pipeline", "stage": "RowSum", "loop": "jo", "depth": 4},
    {"op": "bind", "stage": "Loss", "loop": "o", "axis": "blockIdx.x"},
    {"op": "compute_at", "stage": "Total", "consumer": "Loss", "loop": "o"},
    {"op": "split", "stage": "Total", "loop": "r", "factor": 1024, "outer": "ro", "inner": "rt"},
    {"op": "cross_thread_reduce", "stage": "Total", "loop": "rt", "kind": "block"}
  ])");
  return p;
}

}  // namespace cusched
