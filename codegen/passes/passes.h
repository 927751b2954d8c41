#pragma once
// The lowering passes, in the order codegen/lower.cpp runs them.
#include "codegen/ir.h"
#include "dsl/schedule_state.h"

namespace cusched {

// Global buffers: inputs, outputs, and a scratch buffer per intermediate root stage.
std::vector<BufferSpec> plan_global_buffers(const ScheduleState& state);
// One kernel per root stage, holding the stages computed inside it.
std::vector<Kernel> build_kernels(const ScheduleState& state, const std::vector<BufferSpec>& globals);
// Grid and block sizes, thread-count placeholders, and the rule that a thread loop
// around a barrier spans the whole block.
void assign_launch_dims(Kernel& k);
// Drops the guards of cooperative copy loops that every thread's every iteration passes.
void drop_covered_copy_guards(Kernel& k);
// Integer divisions and moduli by constants split through the ranges of the kernel's
// indices where exact: (v * 256 + tid) / 8 -> v * 32 + tid / 8, (v * 256 + tid) % 8 -> tid % 8;
// integer comparisons those ranges decide folded to constants, with the logic over them.
void simplify_divisions(Kernel& k);
// Proves that every read of a shared copy's register tail (cache_read registers) is made
// by the thread that copied the element, and names its register by the unrolled loops.
void resolve_register_tails(Kernel& k);
// In a pipelined wgmma k-step, the refill copies issued between the A fragment loads and
// the wgmma fence, where the thread loops run every thread of the block once.
void issue_refills_after_fragments(Kernel& k);
// Rejects per-thread (register) arrays larger than kMaxRegisterArrayElements.
constexpr int64_t kMaxRegisterArrayElements = 1024;
void check_register_arrays(const Kernel& k);
// Drops back-to-back barriers.
void remove_redundant_barriers(Kernel& k);
// block_raster: inside the kernel's blockIdx.x and blockIdx.y loops, their variables
// replaced by the tile that the block's launch position takes in the grouped order.
void raster_blocks(Kernel& k);
// Constant folding of every expression.
void simplify_kernel(Kernel& k);

}  // namespace cusched
