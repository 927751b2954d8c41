#pragma once
// The divergence model the barrier rule gives LLVM's UniformityInfo for
// kernels: which values differ between the threads of one block.
#include <llvm/Analysis/TargetTransformInfo.h>

namespace cusched::audit {

// A TargetIRAnalysis answering only the divergence questions: thread and lane
// indices, atomics, shuffles, votes, inline-asm results, calls to functions
// with bodies and loads from thread-private memory are divergent; block
// indices and sizes, kernel parameters, block-wide barrier reductions and
// loads from shared, global or constant memory at a uniform address are
// uniform. (LLVM 19's own NVPTX model treats every call, blockIdx included,
// as divergent, which would flag barriers after a blockIdx-only branch.)
llvm::TargetIRAnalysis kernel_uniformity_model();

}  // namespace cusched::audit
