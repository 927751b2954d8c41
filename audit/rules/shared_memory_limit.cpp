// shared-memory-limit: shared memory over the device limit, and dynamic shared
// memory the launch plan does not request.
#include <map>
#include <set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "audit/ir_support.h"
#include "audit/rules/rules.h"

namespace cusched::audit {
namespace {

constexpr unsigned kSharedAddressSpace = 3;
constexpr int64_t kStaticSharedLimit = 48 * 1024;  // ptxas rejects more static __shared__ per kernel

// The functions whose code refers to `value` (through constant expressions).
void using_functions(const llvm::Value* value, std::set<const llvm::Function*>& out,
                     std::set<const llvm::Value*>& seen) {
  for (const llvm::User* u : value->users()) {
    if (!seen.insert(u).second) continue;
    if (const auto* inst = llvm::dyn_cast<llvm::Instruction>(u))
      out.insert(inst->getFunction());
    else if (llvm::isa<llvm::Constant>(u))
      using_functions(u, out, seen);
  }
}

std::set<const llvm::Function*> reachable_functions(const llvm::Function& kernel) {
  std::set<const llvm::Function*> out{&kernel};
  std::vector<const llvm::Function*> work{&kernel};
  while (!work.empty()) {
    const llvm::Function* f = work.back();
    work.pop_back();
    for (const llvm::BasicBlock& bb : *f)
      for (const llvm::Instruction& inst : bb)
        if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (const llvm::Function* callee = call->getCalledFunction();
              callee && !callee->isDeclaration() && out.insert(callee).second)
            work.push_back(callee);
  }
  return out;
}

class SharedMemoryLimitRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "shared-memory-limit", Severity::Error,
        "Shared memory exceeds the per-block limit, or dynamic shared memory is used but not requested.",
        "For every kernel the rule adds up the static `__shared__` variables it uses (directly or through the "
        "functions it calls) in the device IR. It is an error when the static part alone is over 48 KB (ptxas "
        "refuses more static shared memory per kernel; use `extern __shared__` and request it dynamically), "
        "when static plus the launch plan's dynamic shared memory is over the device limit (232448 bytes, 227 "
        "KB per block on an H200; AuditOptions::max_smem_per_block), and when the kernel uses `extern __shared__` "
        "memory while the launch plan requests no dynamic shared memory (AuditOptions::planned_dynamic_smem, or the "
        "kernel's entry in planned_dynamic_smem_by_kernel, is "
        "0), because every access to it would then be out of bounds. When the launch plan is unknown only the "
        "static checks run."};
    return i;
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions& options,
                       Report& report) const override {
    const llvm::DataLayout& layout = dm.module.getDataLayout();
    std::map<const llvm::GlobalVariable*, std::set<const llvm::Function*>> users;
    for (const llvm::GlobalVariable& gv : dm.module.globals()) {
      if (gv.getAddressSpace() != kSharedAddressSpace) continue;
      std::set<const llvm::Value*> seen;
      using_functions(&gv, users[&gv], seen);
    }
    for (const auto& kf : kernel_functions(dm, facts)) {
      auto reachable = reachable_functions(*kf.function);
      int64_t static_bytes = 0;
      bool uses_dynamic = false;
      for (const auto& [gv, fns] : users) {
        bool used = false;
        for (const llvm::Function* f : fns) used |= reachable.count(f) > 0;
        if (!used) continue;
        if (gv->isDeclaration())
          uses_dynamic = true;
        else
          static_bytes += static_cast<int64_t>(layout.getTypeAllocSize(gv->getValueType()));
      }
      const std::string k = "Kernel '" + kf.facts->name + "'";
      if (static_bytes > kStaticSharedLimit)
        report.add(info(), kf.facts->location,
                   k + " declares " + std::to_string(static_bytes) +
                       " bytes of static shared memory; ptxas accepts at most 49152 bytes of static shared memory.",
                   "Declare the buffer as `extern __shared__` and request its size as dynamic shared memory in "
                   "the launch plan.");
      if (static_bytes > options.max_smem_per_block)
        report.add(info(), kf.facts->location,
                   k + " uses " + std::to_string(static_bytes) + " bytes of static shared memory, over the limit of " +
                       std::to_string(options.max_smem_per_block) + " bytes per block.",
                   "Use smaller tiles or fewer pipeline stages.");
      std::optional<int64_t> planned = options.planned_dynamic_smem;
      if (auto it = options.planned_dynamic_smem_by_kernel.find(kf.facts->name);
          it != options.planned_dynamic_smem_by_kernel.end())
        planned = it->second;
      if (planned) {
        int64_t total = static_bytes + *planned;
        if (total > options.max_smem_per_block && static_bytes <= options.max_smem_per_block)
          report.add(info(), kf.facts->location,
                     k + " needs " + std::to_string(static_bytes) + " bytes of static plus " +
                         std::to_string(*planned) + " bytes of dynamic shared memory = " + std::to_string(total) +
                         " bytes, over the limit of " + std::to_string(options.max_smem_per_block) +
                         " bytes per block.",
                     "Use smaller tiles or fewer pipeline stages so the total fits in 232448 bytes.");
        if (uses_dynamic && *planned == 0)
          report.add(info(), kf.facts->location,
                     k + " uses extern __shared__ (dynamic) shared memory, but the launch plan requests none.",
                     "Set the launch's dynamic_smem_bytes to the size the kernel indexes, or use a static "
                     "__shared__ array.");
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_shared_memory_limit_rule() { return std::make_unique<SharedMemoryLimitRule>(); }
}  // namespace cusched::audit
