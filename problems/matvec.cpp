// matvec: matrix-vector product C = A @ B with B of shape (K, 1) (KernelBench level 1).
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_matvec() {
  Size M("M"), K("K");
  Tensor A("A", DType::f32, {M, K}), B("B", DType::f32, {K, 1});
  Var i("i", M), j("j", 1);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  Problem p;
  p.name = "matvec";
  p.level = "1";
  p.title = "Matrix-vector multiplication C = A @ B, B a column";
  p.torch_semantics = "torch.matmul(A, B)";
  p.notes = "A is (M, K), B is (K, 1), C is (M, 1); memory-bound on A.";
  p.pipeline = Pipeline({C});
  p.sizes = {{"small", {{"M", 37}, {"K", 91}}}, {"bench", {{"M", 2048}, {"K", 1048576}}}};
  p.inputs = {{"A", {"uniform", 0, 1}, std::nullopt},
              {"B", {"uniform", 0, 1}, std::nullopt}};  // torch.rand, as KernelBench
  p.flops = 2.0 * Expr(M) * K;
  p.baseline_schedule = flat_grid_steps("C", {"i", "j"}, 64);
  // Two rows per block of 512 threads: A's rows come through shared memory in 8 KB chunks
  // with 16-byte cp.async, four chunks in flight; each thread keeps one partial per row
  // (B read from L2, shared by the block's two rows), then a block all-reduce.
  p.best_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 2, "outer": "io", "inner": "ii"},
    {"op": "split", "stage": "C", "loop": "k", "factor": 2048, "outer": "ko", "inner": "kr"},
    {"op": "split", "stage": "C", "loop": "kr", "factor": 512, "outer": "ku", "inner": "kt"},
    {"op": "reorder", "stage": "C", "loops": ["io", "ko", "ku", "ii", "j", "kt"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.x"},
    {"op": "unroll", "stage": "C", "loop": "ku"},
    {"op": "unroll", "stage": "C", "loop": "ii"},
    {"op": "cross_thread_reduce", "stage": "C", "loop": "kt", "kind": "block"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
    {"op": "pipeline", "stage": "C", "loop": "ko", "depth": 4}
  ])");
  return p;
}

}  // namespace cusched
