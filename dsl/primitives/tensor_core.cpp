#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"
#include "dsl/primitives/precision_rules.h"
#include "dsl/primitives/tensor_core_tile.h"

namespace cusched {

PrimitiveDef tensor_core_primitive() {
  PrimitiveDef p;
  p.name = "tensor_core";
  p.summary =
      "Computes a sum-of-products stage with warp-level tensor-core instructions: mma.sync m16n8k8 with TF32 "
      "operands (or 3xtf32: each f32 operand split into a TF32 high and low part and three products summed, "
      "which keeps nearly f32 accuracy on long reductions), or m16n8k16 with BF16/F16 operands, accumulating in f32. "
      "The stage's two innermost pure loops and "
      "its innermost reduction loop must tile by the instruction shape (M by 16, N by 8, K by 8 or 16). Shape m64nNk8 "
      "uses Hopper's asynchronous warpgroup instruction (wgmma, tf32 or 3xtf32): each warpgroup of 128 threads "
      "(threadIdx.x) "
      "computes 64 rows of M x N (N = the innermost pure loop, a multiple of 8 up to 256) per k8 step, A from "
      "registers and "
      "B read by the tensor cores from a swizzled shared copy (cache_read swizzle, rows of 32 floats along the "
      "reduction); shape m64nNk16 is the same instruction with BF16 or F16 operands per k16 step, B's copy holding "
      "rows of 64 16-bit elements (a bf16 or f16 source); "
      "with a pipeline of depth 3 or more one k-step stays in flight while the next is prepared; in 3xtf32 the "
      "block's threads split each k-step's B tile into high and low TF32 parts in two more swizzled shared "
      "buffers and each k8 step issues three instructions. Sets the "
      "operand precision, which the problem's tolerance must admit.";
  p.args = {stage_arg(true),
            enum_arg("shape", {"m16n8k8", "m16n8k16", "m64nNk8", "m64nNk16"},
                     "The instruction: mma.sync m16n8k8 or m16n8k16 per warp, or wgmma m64nNk8 (tf32) or m64nNk16 "
                     "(bf16, f16) per warpgroup."),
            enum_arg("precision", {"tf32", "3xtf32", "bf16", "f16"}, "Operand precision.")};
  p.before = "for ii in 0..64: for ji in 0..64: for ki in 0..32: acc[ii,ji] += A[..]*B[..]";
  p.after = "per warp: for m16 tiles, n8 tiles, k8 steps: mma.sync.m16n8k8.tf32 {acc} {a} {b} {acc}";
  p.example = R"({"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"], shape = step["shape"];
    const Precision prec = parse_precision(step["precision"]);
    StageSchedule& s = st.stage(stage);
    const FuncDef* f = st.stage_def(stage);
    if (!f->is_sum_of_load_products())
      fail("tensor-core-not-matmul", "Stage '" + stage + "' is not a sum of products of two tensors.",
           "Use tensor_core on a matmul-like stage: sum(k, A(i, k) * B(k, j)).");
    const bool wgmma = shape == "m64nNk8" || shape == "m64nNk16", k16 = shape == "m16n8k16" || shape == "m64nNk16";
    if (k16 == (prec == Precision::tf32 || prec == Precision::x3tf32))
      fail("tensor-core-shape-precision", "Shape " + shape + " does not take " + precision_name(prec) + " operands.",
           "Use m16n8k8 or m64nNk8 with tf32 or 3xtf32, or m16n8k16 or m64nNk16 with bf16 or f16.");
    int64_t k_tile = k16 ? 16 : 8, m_tile = wgmma ? 64 : 16;
    std::vector<const LoopInfo*> pure, red;
    for (const auto& n : s.order) {
      const LoopInfo* l = s.find_loop(n);
      (l->reduction ? red : pure).push_back(l);
    }
    if (pure.size() < 2 || red.empty())
      fail("tensor-core-shape-does-not-tile",
           "Stage '" + stage + "' needs two pure loops and a reduction loop for " + shape + ".",
           "Give the stage a 2-D output and a reduction.");
    const LoopInfo* m = pure[pure.size() - 2];
    const LoopInfo* n = pure[pure.size() - 1];
    const LoopInfo* k = red.back();
    if (m->extent % m_tile || n->extent % 8 || k->extent % k_tile || (wgmma && n->extent > 256))
      fail("tensor-core-shape-does-not-tile",
           "The innermost loops (" + m->name + ": " + std::to_string(m->extent) + ", " + n->name + ": " +
               std::to_string(n->extent) + ", " + k->name + ": " + std::to_string(k->extent) + ") do not tile by " +
               shape + ".",
           "Split so that the innermost pure loops are multiples of " + std::to_string(m_tile) + " and 8" +
               (wgmma ? " (the inner one at most 256)" : "") + " and the innermost reduction loop a multiple of " +
               std::to_string(k_tile) + ".");
    require_precision_within_tolerance(prec, st.ctx.atol, st.ctx.rtol, stage);
    // A later step may still split the reduction; lowering checks that it was.
    require_lowerable_tensor_core_tile(stage, shape, m->extent, n->extent, /*reduction_outside_tile=*/true);
    s.tensor_core_shape = shape;
    s.precision = prec;
  };
  return p;
}

}  // namespace cusched
