// The combined facts-and-codegen frontend action.
#include "audit/audit_action.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>

namespace cusched::audit {

namespace {
// Records expansions of __managed__ in audited files.
class ManagedMacroWatcher : public clang::PPCallbacks {
 public:
  ManagedMacroWatcher(const clang::SourceManager& sm, SourceFacts& facts, DisplayName display, IsAudited is_audited)
      : sm_(sm), facts_(facts), display_(std::move(display)), is_audited_(std::move(is_audited)) {}

  void MacroExpands(const clang::Token& name, const clang::MacroDefinition&, clang::SourceRange range,
                    const clang::MacroArgs*) override {
    const clang::IdentifierInfo* id = name.getIdentifierInfo();
    if (!id || id->getName() != "__managed__") return;
    clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(range.getBegin()));
    if (p.isInvalid() || !is_audited_(p.getFilename())) return;
    facts_.managed_macro_uses.push_back(
        {display_(p.getFilename()), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())});
  }

 private:
  const clang::SourceManager& sm_;
  SourceFacts& facts_;
  DisplayName display_;
  IsAudited is_audited_;
};
}  // namespace

bool AuditAction::BeginSourceFileAction(clang::CompilerInstance& ci) {
  ci.getPreprocessor().addPPCallbacks(
      std::make_unique<ManagedMacroWatcher>(ci.getSourceManager(), facts_, display_, is_audited_));
  return clang::EmitLLVMOnlyAction::BeginSourceFileAction(ci);
}

std::unique_ptr<clang::ASTConsumer> AuditAction::CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) {
  std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
  consumers.push_back(make_source_facts_collector(facts_, display_, is_audited_));
  if (auto codegen = clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file)) consumers.push_back(std::move(codegen));
  return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
}

}  // namespace cusched::audit
