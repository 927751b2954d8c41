// Collecting findings: ordered by position, each reported once.
#include <algorithm>
#include <tuple>

#include "audit/rule.h"

namespace cusched::audit {

void Report::add(const RuleInfo& rule, const SourceLocation& where, std::string message, std::string hint) {
  Finding f;
  f.rule = rule.id;
  f.severity = rule.severity;
  f.file = where.file;
  f.line = where.line;
  f.column = where.column;
  f.message = std::move(message);
  f.hint = std::move(hint);
  findings_.push_back(std::move(f));
}

std::vector<Finding> Report::take() {
  auto key = [](const Finding& f) { return std::tie(f.file, f.line, f.column, f.rule, f.message); };
  std::stable_sort(findings_.begin(), findings_.end(),
                   [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
  findings_.erase(std::unique(findings_.begin(), findings_.end(),
                              [&](const Finding& a, const Finding& b) { return key(a) == key(b); }),
                  findings_.end());
  return std::move(findings_);
}

const KernelFacts* SourceFacts::find_kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace cusched::audit
