#include "runtime/compiled_code_scan.h"

#include <set>

#include "runtime/module_state_scan.h"
#include "runtime/precision_scan.h"

namespace cusched::runtime {

std::optional<CompiledCodeRejection> compiled_code_rejection(const KernelBundle& bundle, const std::string& ptx) {
  std::set<DType> dtypes;
  for (const auto& b : bundle.buffers) dtypes.insert(b.dtype);
  if (auto use = undeclared_precision(ptx, admitted_precisions(bundle.precision, dtypes)))
    return CompiledCodeRejection{
        Verdict::undeclared_precision,
        "The kernel is declared " + precision_name(bundle.precision) + " but its compiled code computes in " +
            precision_name(use->precision) + " (PTX line " + std::to_string(use->line) + ": " + use->instruction +
            "); declare the precision it uses (the schedule's precision step, check --precision) if the problem's "
            "tolerance admits it, or keep its arithmetic in f32."};
  if (auto state = persistent_state(ptx))
    return CompiledCodeRejection{Verdict::persistent_state, persistent_state_message(*state)};
  return std::nullopt;
}

}  // namespace cusched::runtime
