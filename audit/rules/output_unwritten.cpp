// output-unwritten: an output of the kernel contract that no path of the kernel writes.
#include <llvm/IR/Function.h>

#include "audit/ir_support.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {
class OutputUnwrittenRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "output-unwritten", Severity::Error, "An output of the kernel contract is never written.",
        "For each parameter the kernel contract marks as an output, the rule looks in the optimised device IR "
        "(helpers inlined, dead code removed) for any store, atomic, memset/memcpy, inline asm or call that may "
        "write through a pointer derived from it. If no path of the kernel writes it at all, the kernel cannot "
        "produce that result and would only pass by reading back stale memory. The check is conservative: a "
        "pointer handed to asm or an opaque call counts as written. Outputs written only on some paths are "
        "`output-unwritten-on-path`'s concern when a loaded value decides the path; paths skipped by bounds "
        "checks are left to the verifier, which poisons outputs before every launch. Without a contract the "
        "rule does not run."};
    return i;
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions& options,
                       Report& report) const override {
    for (const KernelContract* contract : contracts(options))
      for (const auto& kf : kernel_functions(dm, facts)) {
        if (kf.facts->name != contract->kernel_name) continue;
        check_kernel(kf, *contract, report);
      }
  }

 private:
  template <typename KernelFunction>
  void check_kernel(const KernelFunction& kf, const KernelContract& contract, Report& report) const {
    if (kf.function->arg_size() != kf.facts->params.size()) return;
    auto writes = memory_writes(*kf.function);
    for (const auto& want : contract.params) {
      if (!want.is_output) continue;
      for (size_t i = 0; i < kf.facts->params.size(); ++i) {
        if (kf.facts->params[i].name != want.name) continue;
        const llvm::Argument* arg = kf.function->getArg(i);
        bool written = false;
        for (const auto& w : writes) written |= pointer_roots(w.pointer).count(arg) > 0;
        if (!written)
          report.add(info(), kf.facts->params[i].location,
                     "Kernel '" + kf.facts->name + "' never writes its output '" + want.name + "' on any path.",
                     "Store every element of '" + want.name +
                         "' (check the index computation and the guards "
                         "around the stores).");
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_output_unwritten_rule() { return std::make_unique<OutputUnwrittenRule>(); }
}  // namespace cusched::audit
