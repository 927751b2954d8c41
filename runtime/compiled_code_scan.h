#pragma once
// The verdict that the scans of a candidate's compiled PTX give before anything runs:
// a precision narrower than the declared one (runtime/precision_scan.h) or state kept
// from one launch to the next (runtime/module_state_scan.h). `check` without a GPU, the
// search and the GPU evaluation all call this, so they refuse the same kernels with the
// same message.
#include <optional>
#include <string>

#include "codegen/kernel_bundle.h"
#include "runtime/verdict.h"

namespace cusched::runtime {

struct CompiledCodeRejection {
  Verdict verdict;      // undeclared_precision or persistent_state
  std::string message;  // a full sentence naming the fix
};

std::optional<CompiledCodeRejection> compiled_code_rejection(const KernelBundle& bundle, const std::string& ptx);

}  // namespace cusched::runtime
