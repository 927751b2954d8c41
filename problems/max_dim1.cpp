// max_dim1: maximum over dim 1 of a (B, D1, D2) tensor (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_max_dim1() {
  Size B("B"), D1("D1"), D2("D2");
  Tensor X("X", DType::f32, {B, D1, D2});
  Var b("b", B), j("j", D2);
  RVar r("r", D1);
  Func Mx = compute("M", {b, j}, maximum(r, X(b, r, j)));
  Problem p;
  p.name = "max_dim1";
  p.level = "1";
  p.title = "Maximum over dim 1 of a 3-D tensor";
  p.torch_semantics = "torch.amax(X, dim=1)";
  p.notes = "The values of torch.max(X, dim=1); output (B, D2); NaN propagates.";
  p.pipeline = Pipeline({Mx});
  p.sizes = {{"small", {{"B", 3}, {"D1", 17}, {"D2", 29}}}, {"bench", {{"B", 128}, {"D1", 4096}, {"D2", 4095}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"randint", -3, 3}}};
  p.flops = [](const SizeBindings& s) { return 1.0 * s.at("B") * s.at("D1") * s.at("D2"); };
  p.baseline_schedule = flat_grid_steps("M", {"b", "j"});
  p.best_schedule = whole_rows_reduction_steps("M", "b", "j", "r", 1024, 4);
  return p;
}

}  // namespace cusched
