#include "rownorm_problem.h"

using namespace cusched;

Problem make_rownorm() {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  RVar k("k", D);
  Func sum_sq = compute("SumSq", {i}, sum(k, X(i, k) * X(i, k)));
  Func y = compute("Y", {i, j}, X(i, j) / max(sqrt(sum_sq(i)), 1e-12f));

  Problem p;
  p.name = "rownorm";
  p.level = "user";
  p.title = "Row-wise L2 normalisation";
  p.torch_semantics = "torch.nn.functional.normalize(X, p=2.0, dim=1)";
  p.notes = "eps = 1e-12 as in F.normalize: rows of norm below it are divided by eps.";
  p.pipeline = Pipeline({y});
  p.sizes = {{"small", {{"R", 7}, {"D", 300}}}, {"bench", {{"R", 4096}, {"D", 8192}}}};
  // Adversarial: a large mean and a small spread, where a sloppy sum of squares loses digits.
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 40, 4}}};
  p.flops = 3.0 * Expr(R) * D;  // an expression over the sizes: square, add, scale per element
  // No baseline_schedule: cusched derives one from the pipeline (the automatic baseline).
  return p;
}

Schedule block_per_row_schedule(const ScheduleContext& ctx) {
  Schedule s(ctx);
  s.bind("Y", "i", GpuAxis::BlockX);
  auto [jo, jt] = s.split("Y", "j", 256, "jo", "jt");
  s.bind("Y", jt, GpuAxis::ThreadX);
  s.compute_at("SumSq", "Y", "i");
  auto [ko, kt] = s.split("SumSq", "k", 256, "ko", "kt");
  s.cross_thread_reduce("SumSq", kt, "block");
  return s;
}
