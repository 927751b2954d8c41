// device-timer: reading clocks or timers in device code.
#include <set>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "audit/asm_text.h"
#include "audit/ir_support.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

const std::set<std::string> kTimerFunctions = {"clock",
                                               "clock64",
                                               "__clock",
                                               "__clock64",
                                               "__globaltimer",
                                               "globaltimer",
                                               "__nvvm_read_ptx_sreg_clock",
                                               "__nvvm_read_ptx_sreg_clock64",
                                               "__nvvm_read_ptx_sreg_globaltimer",
                                               "__builtin_readcyclecounter",
                                               "__builtin_readsteadycounter"};
const std::set<std::string> kTimerIntrinsics = {"llvm.nvvm.read.ptx.sreg.clock", "llvm.nvvm.read.ptx.sreg.clock64",
                                                "llvm.nvvm.read.ptx.sreg.globaltimer", "llvm.readcyclecounter",
                                                "llvm.readsteadycounter"};

class DeviceTimerRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "device-timer", Severity::Error, "Device code reads a clock or timer.",
        "A kernel's result must not depend on time, and a kernel must not measure itself: the runtime times "
        "launches with events on one stream. The rule flags clock(), clock64(), the %clock, %clock64 and "
        "%globaltimer special registers read through inline asm, and the matching builtins, both in the source "
        "and in the device IR after inlining (so a timer read hidden in a helper or a library header is found "
        "too)."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& c : facts.calls)
      if (kTimerFunctions.count(c.callee))
        report.add(info(), c.location, "Device code reads a timer with '" + c.callee + "()'.", hint());
    for (const auto& a : facts.asm_statements)
      if (asm_reads_timer(a.text))
        report.add(info(), a.location, "Inline asm reads a clock or timer special register.", hint());
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions&,
                       Report& report) const override {
    SourceLocation fallback{facts.main_file, 0, 0};
    for (const llvm::Function& f : dm.module) {
      for (const llvm::BasicBlock& bb : f) {
        for (const llvm::Instruction& inst : bb) {
          const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
          if (!call) continue;
          const llvm::Function* callee = call->getCalledFunction();
          bool timer =
              (callee && kTimerIntrinsics.count(callee->getName().str())) || asm_reads_timer(inline_asm_text(inst));
          if (timer)
            report.add(info(), ir_location(dm, inst, fallback),
                       "The device code of '" + f.getName().str() + "' reads a clock or timer.", hint());
        }
      }
    }
  }

 private:
  static std::string hint() {
    return "Remove the timer read; cusched times kernels itself with device events, and results must not depend "
           "on time.";
  }
};
}  // namespace
std::unique_ptr<Rule> make_device_timer_rule() { return std::make_unique<DeviceTimerRule>(); }
}  // namespace cusched::audit
