#pragma once
// Collects the errors Clang reports while parsing, as plain values.
#include <string>
#include <vector>

#include <clang/Basic/Diagnostic.h>

#include "audit/source_facts_collector.h"

namespace cusched::audit {

struct ParseError {
  SourceLocation location;
  std::string message;
};

class ParseDiagnostics : public clang::DiagnosticConsumer {
 public:
  explicit ParseDiagnostics(DisplayName display) : display_(std::move(display)) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;
  const std::vector<ParseError>& errors() const { return errors_; }
  bool mentions_precompiled_header() const;  // the cached PCH could not be used

 private:
  DisplayName display_;
  std::vector<ParseError> errors_;
};

}  // namespace cusched::audit
