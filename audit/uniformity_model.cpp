// Divergence sources for kernels on NVPTX.
#include "audit/uniformity_model.h"

#include <llvm/Analysis/TargetTransformInfoImpl.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace cusched::audit {

namespace {

constexpr unsigned kGlobal = 1, kShared = 3, kConstant = 4, kLocal = 5, kParam = 101;

bool uniform_memory(const llvm::Value* pointer) {
  unsigned as = pointer->getType()->getPointerAddressSpace();
  if (as == kGlobal || as == kShared || as == kConstant || as == kParam) return true;
  if (as == kLocal) return false;
  // Generic pointers: uniform when they come from a kernel parameter or a
  // shared/global/constant variable, private when they come from an alloca.
  const llvm::Value* base = llvm::getUnderlyingObject(pointer, 0);
  if (llvm::isa<llvm::Argument>(base)) return true;
  if (const auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(base)) return gv->getAddressSpace() != kLocal;
  return false;
}

bool divergent_intrinsic(llvm::StringRef name) {
  if (name.starts_with("llvm.nvvm.read.ptx.sreg.")) {
    llvm::StringRef reg = name.drop_front(strlen("llvm.nvvm.read.ptx.sreg."));
    return reg.starts_with("tid") || reg.starts_with("laneid") || reg.starts_with("lanemask") ||
           reg.starts_with("warpid") || reg.starts_with("smid") || reg.starts_with("clock") ||
           reg.starts_with("globaltimer") || reg.starts_with("pm");
  }
  if (name.starts_with("llvm.nvvm.barrier0.") || name.starts_with("llvm.nvvm.barrier.cta.red"))
    return false;  // __syncthreads_count/and/or: one value for the whole block
  return name.starts_with("llvm.nvvm.shfl") || name.starts_with("llvm.nvvm.vote") ||
         name.starts_with("llvm.nvvm.match") || name.starts_with("llvm.nvvm.atomic") ||
         name.starts_with("llvm.nvvm.redux") || name.contains("activemask") || name.starts_with("llvm.nvvm.elect");
}

class KernelUniformity : public llvm::TargetTransformInfoImplCRTPBase<KernelUniformity> {
 public:
  explicit KernelUniformity(const llvm::DataLayout& layout)
      : llvm::TargetTransformInfoImplCRTPBase<KernelUniformity>(layout) {}

  bool hasBranchDivergence(const llvm::Function*) const { return true; }
  bool isAlwaysUniform(const llvm::Value*) const { return false; }

  bool isSourceOfDivergence(const llvm::Value* v) const {
    if (llvm::isa<llvm::Argument>(v)) return false;  // only kernels are analysed
    const auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst) return false;
    if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(inst)) return !uniform_memory(load->getPointerOperand());
    if (inst->isAtomic()) return true;
    if (const auto* call = llvm::dyn_cast<llvm::CallBase>(inst)) {
      if (llvm::isa<llvm::InlineAsm>(call->getCalledOperand())) return true;
      const llvm::Function* callee = call->getCalledFunction();
      if (!callee) return true;
      if (callee->isIntrinsic()) return divergent_intrinsic(callee->getName());
      if (callee->getName().starts_with("__nv_")) return false;  // libdevice math: a function of its operands
      return true;
    }
    return false;
  }
};

}  // namespace

llvm::TargetIRAnalysis kernel_uniformity_model() {
  return llvm::TargetIRAnalysis([](const llvm::Function& f) {
    return llvm::TargetTransformInfo(KernelUniformity(f.getParent()->getDataLayout()));
  });
}

}  // namespace cusched::audit
