// output-unwritten-on-path: a path on which a thread finishes without writing an
// output of the kernel contract, decided by a value loaded from memory.
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

std::string at_line(const SourceLocation& l) { return "line " + std::to_string(l.line); }

class OutputUnwrittenOnPathRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "output-unwritten-on-path", Severity::Error,
        "A data-dependent branch lets a thread finish without writing an output of the kernel contract.",
        "Threads outside the bounds of the problem legitimately skip their stores (`if (i < n) out[i] = v;`, "
        "`if (i >= n) return;`, grid-stride loops), but a thread whose store is skipped because of a value it "
        "loaded from memory leaves stale data in the output, which a verification run may not notice. On "
        "Clang's CFG of each kernel, a forward must-analysis tracks, per output of the contract, whether it has "
        "been written on every path; a write is an assignment, compound assignment or increment through the "
        "parameter or a pointer derived from it, or passing such a non-const pointer to a call (a device-library "
        "store helper, an atomic, a lambda that writes it) or to inline asm. At every `return` and at the end "
        "of the kernel reached on a path that wrote nothing, and at the end of every loop iteration that wrote "
        "nothing, the rule looks for the branch that decided it: the last branch on the path whose other side "
        "could have written the output before the two sides join again. If that branch depends on a value "
        "loaded from memory (a read through a pointer, a global, shared or constant variable, a call that "
        "receives a pointer, or a local computed from one; thread and block indices, block and grid sizes, "
        "constants, scalar parameters and calls on them are not), the rule reports the `return` (for an early "
        "return) or the branch (for a skipped store), naming the output and the condition. So "
        "`if (x[i] > 0) return;` before the store, `if (x[i] > 0) out[i] = v;` without an else, "
        "`if (x[i] > 0 && i < n) ...` and a loop that stores only some of its elements by data are errors, "
        "while a data-dependent extra store followed by a bounds-guarded return is not. Write the output on "
        "every side of such a branch (add the `else`), or make the guard depend only on indices and sizes. "
        "The analysis is per output, not per element, and treats device functions without pointer arguments "
        "as functions of their arguments. Outputs that no path writes at all are `output-unwritten`'s findings. "
        "Without a contract the rule does not run."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions& options, Report& report) const override {
    for (const KernelContract* contract : contracts(options)) check_kernel(facts, *contract, report);
  }

 private:
  void check_kernel(const SourceFacts& facts, const KernelContract& contract, Report& report) const {
    const KernelFacts* kernel = facts.find_kernel(contract.kernel_name);
    if (!kernel) return;
    for (const auto& want : contract.params) {
      if (!want.is_output) continue;
      for (const auto& gap : kernel->output_gaps) {
        if (gap.param != want.name) continue;
        std::string when =
            (gap.condition_outcome.empty() ? "for some values of '" + gap.condition + "'"
                                           : "when '" + gap.condition + "' is " + gap.condition_outcome) +
            " (" + at_line(gap.condition_location) + "), which depends on a value loaded from memory";
        if (gap.exits_by_return) {
          report.add(info(), gap.exit,
                     "Kernel '" + kernel->name + "' can return here without writing its output '" + want.name + "' " +
                         when + ".",
                     "Write '" + want.name +
                         "' before this return, or return early only on a bounds check of "
                         "thread/block indices against sizes (`if (i >= n) return;`).");
        } else {
          std::string finish = gap.loop_iteration ? "can finish an iteration of this loop" : "can finish";
          report.add(info(), gap.condition_location,
                     "Kernel '" + kernel->name + "' " + finish + " without writing its output '" + want.name + "' " +
                         when + ".",
                     "Write '" + want.name +
                         "' on both sides of this branch (add an else that stores the value "
                         "the output must hold), or guard the store only by a bounds check of thread/block indices "
                         "against sizes.");
        }
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_output_unwritten_on_path_rule() { return std::make_unique<OutputUnwrittenOnPathRule>(); }
}  // namespace cusched::audit
