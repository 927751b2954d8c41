// Shared IR helpers.
#include "audit/ir_support.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include "audit/asm_text.h"

namespace cusched::audit {

SourceLocation ir_location(const DeviceModule& dm, const llvm::Instruction& inst, const SourceLocation& fallback) {
  const llvm::DILocation* loc = inst.getDebugLoc().get();
  if (!loc) return fallback;
  while (loc->getInlinedAt()) loc = loc->getInlinedAt();
  if (loc->getLine() == 0) return fallback;
  std::string path = loc->getFilename().str();
  if (!path.empty() && path[0] != '/' && !loc->getDirectory().empty()) path = loc->getDirectory().str() + "/" + path;
  return {dm.display_name(path), static_cast<int>(loc->getLine()), static_cast<int>(loc->getColumn())};
}

std::vector<KernelFunction> kernel_functions(const DeviceModule& dm, const SourceFacts& facts) {
  std::vector<KernelFunction> out;
  for (const auto& k : facts.kernels) {
    llvm::Function* f = dm.module.getFunction(k.ir_name);
    if (f && !f->isDeclaration()) out.push_back({&k, f});
  }
  return out;
}

std::set<const llvm::Argument*> pointer_roots(const llvm::Value* value) {
  std::set<const llvm::Argument*> roots;
  std::set<const llvm::Value*> seen;
  std::vector<const llvm::Value*> work{value};
  while (!work.empty()) {
    const llvm::Value* v = work.back();
    work.pop_back();
    if (!v || !seen.insert(v).second) continue;
    if (const auto* arg = llvm::dyn_cast<llvm::Argument>(v)) {
      roots.insert(arg);
    } else if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(v)) {
      work.push_back(gep->getPointerOperand());
    } else if (const auto* op = llvm::dyn_cast<llvm::Operator>(v);
               op &&
               (op->getOpcode() == llvm::Instruction::BitCast || op->getOpcode() == llvm::Instruction::AddrSpaceCast ||
                op->getOpcode() == llvm::Instruction::PtrToInt || op->getOpcode() == llvm::Instruction::IntToPtr ||
                op->getOpcode() == llvm::Instruction::ZExt || op->getOpcode() == llvm::Instruction::SExt ||
                op->getOpcode() == llvm::Instruction::Trunc || op->getOpcode() == llvm::Instruction::Freeze)) {
      work.push_back(op->getOperand(0));
    } else if (const auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
      work.push_back(bin->getOperand(0));
      work.push_back(bin->getOperand(1));
    } else if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
      for (const llvm::Value* in : phi->incoming_values()) work.push_back(in);
    } else if (const auto* sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
      work.push_back(sel->getTrueValue());
      work.push_back(sel->getFalseValue());
    } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(v)) {
      // Address-space conversions and pointer masks keep the pointer they are given.
      if (const llvm::Function* callee = call->getCalledFunction();
          callee && callee->isIntrinsic() && call->arg_size() >= 1 &&
          (callee->getName().starts_with("llvm.nvvm.ptr.") || callee->getName().starts_with("llvm.ptrmask") ||
           callee->getName().starts_with("llvm.nvvm.cvta")))
        work.push_back(call->getArgOperand(0));
    }
  }
  return roots;
}

std::string inline_asm_text(const llvm::Instruction& inst) {
  if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
    if (const auto* ia = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand())) return ia->getAsmString();
  return "";
}

std::vector<MemoryWrite> memory_writes(const llvm::Function& f) {
  std::vector<MemoryWrite> out;
  for (const llvm::BasicBlock& bb : f) {
    for (const llvm::Instruction& inst : bb) {
      if (const auto* st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        out.push_back({&inst, st->getPointerOperand(), true});
        // A pointer stored to memory escapes: it may be written through later.
        if (st->getValueOperand()->getType()->isPointerTy()) out.push_back({&inst, st->getValueOperand(), false});
      } else if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
        out.push_back({&inst, rmw->getPointerOperand(), true});
      } else if (const auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
        out.push_back({&inst, cx->getPointerOperand(), true});
      } else if (const auto* mem = llvm::dyn_cast<llvm::MemIntrinsic>(&inst)) {
        out.push_back({&inst, mem->getRawDest(), true});
      } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        std::string text = inline_asm_text(inst);
        bool is_asm = llvm::isa<llvm::InlineAsm>(call->getCalledOperand());
        const llvm::Function* callee = call->getCalledFunction();
        if (!is_asm && call->onlyReadsMemory()) continue;
        bool certain = false;
        if (is_asm)
          certain = asm_writes_global(text);
        else if (callee && callee->isIntrinsic())
          certain = callee->getName().contains("atomic") || callee->getName().contains(".red.");
        for (unsigned i = 0; i < call->arg_size(); ++i) {
          const llvm::Value* arg = call->getArgOperand(i);
          if (!is_asm && !arg->getType()->isPointerTy()) continue;
          if (!is_asm && call->onlyReadsMemory(i)) continue;
          out.push_back({&inst, arg, certain});
        }
      }
    }
  }
  return out;
}

}  // namespace cusched::audit
