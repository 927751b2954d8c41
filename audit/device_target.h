#pragma once
// LLVM's targets (NVPTX among them), registered once before Clang's code
// generator runs.

namespace cusched::audit {

void initialize_llvm_targets();

}  // namespace cusched::audit
