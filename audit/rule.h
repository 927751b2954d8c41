#pragma once
// One audit rule: a stable id, a severity, its documentation and the checks
// it runs on the source facts and on the optimised device IR.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "audit/source_facts.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace cusched::audit {

// Collects findings; the rule's id and severity are filled in from its info.
class Report {
 public:
  void add(const RuleInfo& rule, const SourceLocation& where, std::string message, std::string hint);
  std::vector<Finding> take();  // sorted by position, duplicates removed

 private:
  std::vector<Finding> findings_;
};

// The device module after Clang's -O1 pipeline, with line tables.
struct DeviceModule {
  llvm::Module& module;
  std::function<std::string(const std::string& path)> display_name;  // debug-info path -> shown name
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  virtual void check_source(const SourceFacts&, const AuditOptions&, Report&) const {}
  virtual void check_device_ir(const DeviceModule&, const SourceFacts&, const AuditOptions&, Report&) const {}
};

// Every rule, in documentation order.
const std::vector<std::unique_ptr<Rule>>& all_rules();
const Rule& rule_by_id(const std::string& id);

}  // namespace cusched::audit
