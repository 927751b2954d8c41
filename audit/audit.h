#pragma once
// The audit stage: checks CUDA source with Clang 19 (AST and device LLVM IR)
// before NVRTC compiles it, and reports findings as structured values.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched::audit {

enum class Severity { Error, Warning, Info };

std::string to_string(Severity s);  // "error", "warning", "info"

struct Finding {
  std::string rule;  // stable rule id, e.g. "device-host-api"
  Severity severity = Severity::Error;
  std::string file;
  int line = 0, column = 0;
  std::string message, hint;
  nlohmann::json to_json() const;
  std::string to_string() const;  // "file:line:col: error: message [rule]\n  hint: ..."
};

struct ContractParam {
  std::string name;
  std::string type;  // e.g. "const float*"; __restrict__ is ignored when comparing; "" accepts any type
  bool is_output = false;
};

// The signature a problem expects of its kernel.
// JSON: {"kernel_name": "k", "params": [{"name": "A", "type": "const float*", "is_output": false}]}
struct KernelContract {
  std::string kernel_name;
  std::vector<ContractParam> params;
  static KernelContract from_json(const nlohmann::json& j);  // throws cusched::UserError
  nlohmann::json to_json() const;
};

struct AuditOptions {
  std::optional<KernelContract> contract;
  // Contracts of further kernels in the same source (a multi-launch bundle: one per launch).
  std::vector<KernelContract> more_contracts;
  std::map<std::string, std::string>
      headers;  // in-memory include files (the project's device library), name -> contents
  std::optional<int64_t> planned_dynamic_smem;  // from the launch plan; nullopt = unknown
  // Per kernel (by name) from a multi-launch plan; a kernel listed here ignores planned_dynamic_smem.
  std::map<std::string, int64_t> planned_dynamic_smem_by_kernel;
  int64_t max_smem_per_block = 232448;
  std::string ptxas_log;  // optional NVRTC/ptxas -v log for the info rule
  bool use_pch = true;    // precompile the CUDA headers and `headers` once, cached on disk
};

struct RuleInfo {
  std::string id;
  Severity severity;
  std::string summary;  // one line
  std::string doc;      // one paragraph
};

// `contract` and then `more_contracts`, the contracts the contract rules check.
std::vector<const KernelContract*> contracts(const AuditOptions& options);

const std::vector<RuleInfo>& rules();  // from the rule classes, for docs/audit.md

std::vector<Finding> audit_source(const std::string& source, const std::string& filename, const AuditOptions&);
std::vector<Finding> audit_file(const std::string& path, const AuditOptions&);  // throws UserError when unreadable
bool has_error(const std::vector<Finding>&);

// The rule reference in Markdown; docs/audit.md is this text.
std::string audit_reference_markdown();

}  // namespace cusched::audit
