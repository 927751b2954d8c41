#pragma once
// One Clang run that both records source facts and emits the device IR:
// the AST consumer and Clang's code generator share a single parse.
#include <clang/CodeGen/CodeGenAction.h>

#include "audit/source_facts_collector.h"

namespace cusched::audit {

class AuditAction : public clang::EmitLLVMOnlyAction {
 public:
  AuditAction(llvm::LLVMContext* context, SourceFacts& facts, DisplayName display, IsAudited is_audited)
      : clang::EmitLLVMOnlyAction(context),
        facts_(facts),
        display_(std::move(display)),
        is_audited_(std::move(is_audited)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override;
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override;

 private:
  SourceFacts& facts_;
  DisplayName display_;
  IsAudited is_audited_;
};

}  // namespace cusched::audit
