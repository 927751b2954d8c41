// Clang errors, kept with their positions for the clang-parse rule.
#include "audit/parse_diagnostics.h"

#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>

namespace cusched::audit {

void ParseDiagnostics::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  if (level < clang::DiagnosticsEngine::Error) return;
  ParseError e;
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  e.message = text.str().str();
  if (info.getLocation().isValid() && info.hasSourceManager()) {
    const auto& sm = info.getSourceManager();
    clang::PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(info.getLocation()));
    if (p.isValid()) {
      e.location.file = display_(p.getFilename());
      e.location.line = static_cast<int>(p.getLine());
      e.location.column = static_cast<int>(p.getColumn());
    }
  }
  errors_.push_back(std::move(e));
}

bool ParseDiagnostics::mentions_precompiled_header() const {
  for (const auto& e : errors_)
    if (e.message.find("PCH") != std::string::npos || e.message.find("precompiled") != std::string::npos ||
        e.message.find("AST file") != std::string::npos)
      return true;
  return false;
}

}  // namespace cusched::audit
