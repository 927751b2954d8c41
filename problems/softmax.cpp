// softmax over dim 1 of a 2-D tensor (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_softmax() {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D);
  Func Mx = compute("M", {i}, maximum(k, X(i, k)));
  Func S = compute("S", {i}, sum(k, exp(X(i, k) - Mx(i))));
  Func Y = compute("Y", {i, j}, exp(X(i, j) - Mx(i)) / S(i));
  Problem p;
  p.name = "softmax";
  p.level = "1";
  p.title = "Softmax over the last dimension";
  p.torch_semantics = "torch.softmax(X, dim=1)";
  p.notes = "Numerically stable form: the row maximum is subtracted before exp.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"R", 8}, {"D", 300}}}, {"bench", {{"R", 4096}, {"D", 65536}}}};
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
  p.best_schedule = p.baseline_schedule;
  return p;
}

}  // namespace cusched
