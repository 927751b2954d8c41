// divergent-barrier: a block-wide barrier reached under divergent control flow,
// decided by LLVM's uniformity analysis on the optimised device IR.
#include <set>

#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/UniformityAnalysis.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>

#include "audit/asm_text.h"
#include "audit/ir_support.h"
#include "audit/rules/rules.h"
#include "audit/uniformity_model.h"

namespace cusched::audit {
namespace {

bool is_barrier(const llvm::Instruction& inst) {
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
  if (!call) return false;
  if (const llvm::Function* f = call->getCalledFunction()) {
    llvm::StringRef n = f->getName();
    if (n.starts_with("llvm.nvvm.bar.warp.sync") || n.contains("arrive") || n.ends_with(".cnt"))
      return false;  // __syncwarp, arrive-only and counted (partial) barriers do not wait for the whole block
    return n.starts_with("llvm.nvvm.barrier") || n.starts_with("llvm.nvvm.bar.sync");
  }
  return asm_is_barrier(inline_asm_text(inst));
}

// Functions that contain a barrier, directly or through the functions they call.
std::set<const llvm::Function*> functions_with_barriers(const llvm::Module& m) {
  std::set<const llvm::Function*> out;
  auto calls_barrier = [&](const llvm::Function& f) {
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& inst : bb) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (is_barrier(inst) || (call && out.count(call->getCalledFunction()))) return true;
      }
    return false;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (const llvm::Function& f : m)
      if (!f.isDeclaration() && !out.count(&f) && calls_barrier(f)) changed = out.insert(&f).second;
  }
  return out;
}

// Blocks that run only for some threads of a block: control dependent,
// directly or transitively, on a branch whose condition diverges.
std::set<const llvm::BasicBlock*> divergent_blocks(llvm::Function& f, llvm::UniformityInfo& ui,
                                                   llvm::PostDominatorTree& pdt) {
  std::set<const llvm::BasicBlock*> region;
  std::vector<const llvm::BasicBlock*> branches;
  std::set<const llvm::BasicBlock*> queued;
  for (llvm::BasicBlock& bb : f)
    if (bb.getTerminator() && bb.getTerminator()->getNumSuccessors() > 1 && ui.hasDivergentTerminator(bb)) {
      branches.push_back(&bb);
      queued.insert(&bb);
    }
  while (!branches.empty()) {
    const llvm::BasicBlock* t = branches.back();
    branches.pop_back();
    auto* t_node = pdt.getNode(t);
    auto* stop = t_node ? t_node->getIDom() : nullptr;
    for (const llvm::BasicBlock* s : llvm::successors(t)) {
      for (auto* n = pdt.getNode(s); n && n != stop; n = n->getIDom()) {
        const llvm::BasicBlock* b = n->getBlock();
        if (!b || !region.insert(b).second) continue;
        if (b->getTerminator() && b->getTerminator()->getNumSuccessors() > 1 && queued.insert(b).second)
          branches.push_back(b);
      }
    }
  }
  return region;
}

class DivergentBarrierRule : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{
        "divergent-barrier", Severity::Error, "A block-wide barrier is reached under divergent control flow.",
        "`__syncthreads()`, `__syncthreads_count/and/or`, `__barrier_sync(id)` and named barriers in inline asm "
        "without a thread count (`bar.sync 1;`, `barrier.sync`, `bar.red`) must be reached by every thread of "
        "the block, or the block hangs or reads stale shared memory. Barriers with a thread count "
        "(`bar.sync 1, 128;`, `__barrier_sync_count`) synchronise chosen warps and may sit in warp-dependent "
        "branches; `__syncwarp` is not a block barrier. The rule emits the device IR with Clang's code generator (-O1, "
        "so helpers are "
        "inlined and locals live in registers), runs LLVM's UniformityInfo with a kernel divergence model (thread and "
        "lane "
        "indices, atomics, shuffles, votes, inline-asm results, non-inlined calls and loads from thread-private "
        "memory are divergent; block indices, block sizes, kernel parameters, `__syncthreads_count/and/or` and "
        "loads from shared, global or constant memory at a uniform address are uniform) and reports every barrier, or "
        "call to a function containing one, that "
        "is control dependent, directly or through other branches, on a divergent branch. This includes loops "
        "with thread-dependent trip counts and barriers after an early `return` taken by some threads. Guard the "
        "work, not the barrier: `if (i < n) s[t] = A[i]; __syncthreads();`."};
    return i;
  }

  void check_device_ir(const DeviceModule& dm, const SourceFacts& facts, const AuditOptions&,
                       Report& report) const override {
    auto kernels = kernel_functions(dm, facts);
    if (kernels.empty()) return;
    auto with_barriers = functions_with_barriers(dm.module);
    llvm::PassBuilder pb;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    fam.registerPass([] { return kernel_uniformity_model(); });  // registered first, so it wins
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    for (const auto& kf : kernels) {
      if (!with_barriers.count(kf.function)) continue;
      auto& ui = fam.getResult<llvm::UniformityInfoAnalysis>(*kf.function);
      auto& pdt = fam.getResult<llvm::PostDominatorTreeAnalysis>(*kf.function);
      auto region = divergent_blocks(*kf.function, ui, pdt);
      for (const llvm::BasicBlock& bb : *kf.function) {
        if (!region.count(&bb)) continue;
        for (const llvm::Instruction& inst : bb) {
          const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
          bool barrier = is_barrier(inst) || (call && with_barriers.count(call->getCalledFunction()));
          if (!barrier) continue;
          report.add(info(), ir_location(dm, inst, kf.facts->location),
                     "In kernel '" + kf.facts->name +
                         "', a block-wide barrier is reached under control flow that differs between threads.",
                     "Move the barrier out of the thread-dependent branch or loop (guard the work, not the "
                     "barrier), so every thread of the block reaches it.");
        }
      }
    }
  }
};
}  // namespace
std::unique_ptr<Rule> make_divergent_barrier_rule() { return std::make_unique<DivergentBarrierRule>(); }
}  // namespace cusched::audit
