#pragma once
// Helpers the IR rules share: source positions of instructions, the kernels
// of the module, and which kernel parameter a pointer is derived from.
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>

#include "audit/rule.h"

namespace cusched::audit {

// The position of an instruction in the user's code: for code inlined from
// helpers, the outermost call site; `fallback` when it has no debug location.
SourceLocation ir_location(const DeviceModule& dm, const llvm::Instruction& inst, const SourceLocation& fallback);

struct KernelFunction {
  const KernelFacts* facts;
  llvm::Function* function;
};
// The kernels of the source that have a body in the module.
std::vector<KernelFunction> kernel_functions(const DeviceModule& dm, const SourceFacts& facts);

// The function arguments a pointer (or an integer made from one) may be derived from.
std::set<const llvm::Argument*> pointer_roots(const llvm::Value* value);

// An instruction that may write through `pointer`.
struct MemoryWrite {
  const llvm::Instruction* inst;
  const llvm::Value* pointer;
  bool certain;  // false: a call or asm statement that receives the pointer and may write through it
};
std::vector<MemoryWrite> memory_writes(const llvm::Function& f);

// The asm template of an inline-asm call, or "" for other instructions.
std::string inline_asm_text(const llvm::Instruction& inst);

}  // namespace cusched::audit
