// softmax over dim 1 of a 2-D tensor (KernelBench level 1), at (4096, 65536)
// ("softmax") and at KernelBench's (4096, 393216) ("softmax_large").
#include "dsl/dsl.h"
#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

namespace {

Problem softmax_problem(const std::string& name, int64_t bench_rows, int64_t bench_cols) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D);
  Func Mx = compute("M", {i}, maximum(k, X(i, k)));
  Func S = compute("S", {i}, sum(k, exp(X(i, k) - Mx(i))));
  Func Y = compute("Y", {i, j}, exp(X(i, j) - Mx(i)) / S(i));
  Problem p;
  p.name = name;
  p.level = "1";
  p.title = "Softmax over the last dimension";
  p.torch_semantics = "torch.softmax(X, dim=1)";
  p.notes = "Numerically stable form: the row maximum is subtracted before exp.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"R", 8}, {"D", 300}}}, {"bench", {{"R", bench_rows}, {"D", bench_cols}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 120, 4}}};
  p.flops = 5.0 * Expr(R) * D;
  p.baseline_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "M", "loop": "i", "factor": 64},
    {"op": "bind", "stage": "M", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "M", "loop": "ii", "axis": "threadIdx.x"},
    {"op": "split", "stage": "S", "loop": "i", "factor": 64},
    {"op": "bind", "stage": "S", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "S", "loop": "ii", "axis": "threadIdx.x"},
    {"op": "split", "stage": "Y", "loop": "j", "factor": 256},
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"}
  ])");
  // Each row split into 8 contiguous slices, one per block of a thread-block cluster of 8
  // blocks of 256 threads: each block copies its slice into shared memory (32 KiB, float4
  // copies), the max and the sum of exp read that copy (cache_read share) and are
  // combined in the block and then across the cluster through distributed shared memory,
  // and the block normalises its slice from the copy: X is read from memory once.
  // The sum and the output use fast math (__expf, __fdividef). Each thread keeps the last
  // 2 of its 8 float4 in registers (cache_read registers): the shared copy is 24 KiB, so
  // that 8 blocks of 256 threads (32 registers each: launch bounds) fit on a multiprocessor
  // instead of 6; a block waiting at the cluster barriers holds its slice, and the more
  // blocks wait, the more loads are in flight.
  p.best_schedule = concat_steps(
      {cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", 8, 256, 2),
       nlohmann::json::array({schedule_step("launch_bounds", "Y", {{"max_threads", 256}, {"min_blocks", 8}})}),
       fast_math_steps({"S", "Y"})});
  return p;
}

}  // namespace

Problem make_softmax() { return softmax_problem("softmax", 4096, 65536); }

Problem make_softmax_large() {
  Problem p = softmax_problem("softmax_large", 4096, 393216);
  p.title = "Softmax over the last dimension of KernelBench's (4096, 393216) tensor";
  // Rows in 16 slices over clusters of 16 blocks (a non-portable cluster size) of 512
  // threads, each slice (96 KiB) in shared memory and read by the max, the sum and the
  // output (faster than 1024 threads, than 8 slices of 192 KiB, and than clusters of 4
  // that re-read X). Two blocks fit per SM, so a block's copy
  // overlaps another's passes only in pairs. The sum and the output use fast math.
  p.best_schedule = concat_steps(
      {cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", 16, 512), fast_math_steps({"S", "Y"})});
  return p;
}

}  // namespace cusched
