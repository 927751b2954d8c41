// thread-exit: __trap, breakpoints and asm("exit") end threads outside normal control flow.
#include <set>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "audit/asm_text.h"
#include "audit/ir_support.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

const std::set<std::string> kExitFunctions = {"__trap",      "__brkpt",    "__builtin_trap", "__builtin_debugtrap",
                                              "__nvvm_trap", "__nvvm_exit"};
const std::set<std::string> kExitIntrinsics = {"llvm.trap", "llvm.debugtrap", "llvm.nvvm.exit"};

class ThreadExitRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "thread-exit", Severity::Error, "Device code traps or exits threads through __trap, a breakpoint or asm exit.",
        "`__trap()` aborts the whole launch (and poisons the CUDA context for every later kernel), `__brkpt()` "
        "stops under a debugger, and `asm(\"exit;\")` ends a thread without returning, which can leave its "
        "partners waiting at a barrier or skip writing outputs. None of them belongs in a kernel that is "
        "verified and timed. The rule checks calls and inline asm in the source, and the device IR after "
        "inlining for the trap intrinsics and asm `trap`/`exit`/`brkpt`. Return from the kernel instead."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& c : facts.calls)
      if (kExitFunctions.count(c.callee))
        report.add(info(), c.location, "Device code calls '" + c.callee + "()', which ends the thread abnormally.",
                   hint());
    for (const auto& a : facts.asm_statements)
      if (asm_ends_thread(a.text)) report.add(info(), a.location, "Inline asm contains trap, exit or brkpt.", hint());
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions&,
                       Report& report) const override {
    SourceLocation fallback{facts.main_file, 0, 0};
    for (const llvm::Function& f : dm.module)
      for (const llvm::BasicBlock& bb : f)
        for (const llvm::Instruction& inst : bb) {
          const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
          if (!call) continue;
          const llvm::Function* callee = call->getCalledFunction();
          if ((callee && kExitIntrinsics.count(callee->getName().str())) || asm_ends_thread(inline_asm_text(inst)))
            report.add(info(), ir_location(dm, inst, fallback),
                       "The device code of '" + f.getName().str() + "' traps or exits a thread.", hint());
        }
  }

 private:
  static std::string hint() {
    return "Return from the kernel (with a bounds check) instead of trapping or exiting; let the verifier "
           "report wrong results.";
  }
};
}  // namespace
std::unique_ptr<Rule> make_thread_exit_rule() { return std::make_unique<ThreadExitRule>(); }
}  // namespace cusched::audit
