// argmax_dim1: index of the maximum over dim 1 of a (B, D1, D2) tensor (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_argmax_dim1() {
  Size B("B"), D1("D1"), D2("D2");
  Tensor X("X", DType::f32, {B, D1, D2});
  Var b("b", B), j("j", D2);
  RVar r("r", D1);
  Func Am = compute("I", {b, j}, argmax(r, X(b, r, j)));
  Problem p;
  p.name = "argmax_dim1";
  p.level = "1";
  p.title = "Argmax over dim 1 of a 3-D tensor";
  p.torch_semantics = "torch.argmax(X, dim=1)";
  p.notes =
      "Output (B, D2) of int64; ties resolve to the smallest index, as torch.argmax; an integer output, so any wrong "
      "index fails the tolerance.";
  p.pipeline = Pipeline({Am});
  p.sizes = {{"small", {{"B", 3}, {"D1", 17}, {"D2", 29}}}, {"bench", {{"B", 128}, {"D1", 4096}, {"D2", 4095}}}};
  // Adversarial: few distinct values, so most columns hold ties for the maximum.
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"randint", 0, 7}}};
  p.flops = 1.0 * Expr(B) * D1 * D2;
  p.baseline_schedule = flat_grid_steps("I", {"b", "j"});
  // One block per b reads whole rows: 1024 threads x 4 adjacent columns, each step of r
  // staging the thread's values in registers (cache_read register) so that their loads go
  // out together before the data-dependent compare-and-update.
  p.best_schedule = middle_dim_register_steps("I", "X", 4, 4);
  return p;
}

}  // namespace cusched
