// softmax over dim 1 of a 2-D tensor (KernelBench level 1), at (4096, 65536)
// ("softmax") and at KernelBench's (4096, 393216) ("softmax_large").
#include "dsl/dsl.h"
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
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 40, 4}}};
  p.flops = [](const SizeBindings& s) { return 5.0 * s.at("R") * s.at("D"); };
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
  // Each row spread over a thread-block cluster of 2 blocks of 1024 threads: each block
  // reduces its half of the row (max, then sum of exp), the halves are combined through
  // distributed shared memory, and each block normalises its half with float4 accesses.
  // 0.8574 ms on the H200 (the persistent 32-rows schedule: 1.0096 in the same run;
  // torch.compile 0.7807; bench/RESULTS.md, session 4).
  p.best_schedule = cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 2, 1024);
  return p;
}

}  // namespace

Problem make_softmax() { return softmax_problem("softmax", 4096, 65536); }

Problem make_softmax_large() {
  Problem p = softmax_problem("softmax_large", 4096, 393216);
  p.title = "Softmax over the last dimension of KernelBench's (4096, 393216) tensor";
  // Rows over clusters of 4 blocks: 6.0530 ms on the H200 (torch.compile 4.7431).
  p.best_schedule = cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 4, 1024);
  return p;
}

}  // namespace cusched
