// const-input-write: a const input pointer cast to non-const, or written through.
#include <llvm/IR/Function.h>

#include "audit/ir_support.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {
class ConstInputWriteRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "const-input-write", Severity::Error, "A const input is cast to non-const or written through.",
        "Inputs are passed as pointers to const, and the runtime checksums them around every launch. A kernel "
        "that casts the const away (C-style cast, const_cast or reinterpret_cast to a non-const pointer or "
        "reference) is reported at the cast. Independently, the rule follows every store, atomic, memset/memcpy "
        "destination and writing inline asm (st.global, atom, red, bulk copies to global memory) in the "
        "optimised device IR back to the kernel parameter it is derived from (through pointer arithmetic, casts, "
        "integer round trips, phis and selects); a write whose pointer comes from a pointer-to-const parameter "
        "is an error at the write."};
    return i;
  }

  void check_source(const SourceFacts& facts, const AuditOptions&, Report& report) const override {
    for (const auto& c : facts.const_dropping_casts)
      report.add(info(), c.location, "A cast turns '" + c.from_type + "' into '" + c.to_type + "', dropping const.",
                 "Keep inputs const; write results only to the output parameters (or to shared memory).");
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions&,
                       Report& report) const override {
    for (const auto& kf : kernel_functions(dm, facts)) {
      if (kf.function->arg_size() != kf.facts->params.size()) continue;
      std::vector<const llvm::Argument*> const_params;
      for (size_t i = 0; i < kf.facts->params.size(); ++i)
        if (kf.facts->params[i].is_pointer && kf.facts->params[i].pointee_const)
          const_params.push_back(kf.function->getArg(i));
      if (const_params.empty()) continue;
      for (const auto& w : memory_writes(*kf.function)) {
        if (!w.certain) continue;
        auto roots = pointer_roots(w.pointer);
        for (const llvm::Argument* a : const_params) {
          if (!roots.count(a)) continue;
          const auto& p = kf.facts->params[a->getArgNo()];
          report.add(info(), ir_location(dm, *w.inst, kf.facts->location),
                     "Kernel '" + kf.facts->name + "' writes through its const input '" + p.name + "'.",
                     "Inputs are read-only; write results to an output parameter.");
        }
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_const_input_write_rule() { return std::make_unique<ConstInputWriteRule>(); }
}  // namespace cusched::audit
