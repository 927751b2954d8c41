// `cusched audit FILE.cu`: run the Clang 19 audit on a kernel source and print its findings.
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "codegen/device_library.h"
#include "problems/contract.h"
#include "problems/problem.h"
#include "tools/command.h"
#include "tools/problem_source.h"

#ifdef CUSCHED_HAVE_AUDIT
#include "audit/audit.h"
#include "dsl/error.h"
#endif

namespace cusched::tools {
namespace {

#ifdef CUSCHED_HAVE_AUDIT
bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

struct AuditFlags {
  std::string file;
  std::string contract_path;
  std::string problem;
  std::vector<std::string> headers;  // NAME=PATH
  std::optional<int64_t> dynamic_smem;
  int64_t max_smem = 232448;
  std::string ptxas_log_path;
  bool json = false;
  bool docs = false;
  bool no_pch = false;
};

int usage_error(const std::string& message, const std::string& hint, const std::string& code = "bad-audit-input") {
  (json_requested() ? std::cout : std::cerr)
      << nlohmann::json({{"ok", false}, {"error", Error{-1, "audit", code, message, hint, ""}.to_json()}}).dump(2)
      << "\n";
  return kExitUsage;
}

int run_audit(const AuditFlags& f) {
  if (f.docs) {
    std::cout << audit::audit_reference_markdown();
    return kExitOk;
  }
  if (f.file.empty()) return usage_error("No kernel file was given.", "Run `cusched audit FILE.cu`.");
  audit::AuditOptions options;
  options.max_smem_per_block = f.max_smem;
  options.planned_dynamic_smem = f.dynamic_smem;
  options.use_pch = !f.no_pch;
  for (const auto& h : f.headers) {
    auto eq = h.find('=');
    if (eq == std::string::npos || eq == 0)
      return usage_error("The header '" + h + "' is not NAME=PATH.",
                         "Write --header cusched_device.cuh=path/to/cusched_device.cuh.");
    std::string text;
    if (!read_file(h.substr(eq + 1), text))
      return usage_error("The header file '" + h.substr(eq + 1) + "' cannot be read.", "Check the path.");
    options.headers[h.substr(0, eq)] = text;
  }
  if (!f.ptxas_log_path.empty() && !read_file(f.ptxas_log_path, options.ptxas_log))
    return usage_error("The ptxas log '" + f.ptxas_log_path + "' cannot be read.", "Check the path.");
  try {
    // The project's device library is always available to the audited file.
    for (const auto& [name, text] : device_headers()) options.headers.emplace(name, text);
    if (!f.problem.empty())
      options.contract = audit::KernelContract::from_json(kernel_contract(resolve_problem(f.problem)));
    if (!f.contract_path.empty()) {
      std::string text;
      if (!read_file(f.contract_path, text))
        return usage_error("The contract '" + f.contract_path + "' cannot be read.", "Check the path.");
      nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded())
        return usage_error("The contract '" + f.contract_path + "' is not valid JSON.",
                           "Fix the JSON syntax (see docs/audit.md for the format).");
      options.contract = audit::KernelContract::from_json(j);
    }
    auto start = std::chrono::steady_clock::now();
    auto findings = audit::audit_file(f.file, options);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int errors = 0, warnings = 0;
    for (const auto& x : findings) {
      errors += x.severity == audit::Severity::Error;
      warnings += x.severity == audit::Severity::Warning;
    }
    if (f.json) {
      nlohmann::json out = {{"file", f.file}, {"errors", errors}, {"warnings", warnings}, {"seconds", seconds}};
      out["findings"] = nlohmann::json::array();
      for (const auto& x : findings) out["findings"].push_back(x.to_json());
      std::cout << out.dump(2) << "\n";
    } else {
      for (const auto& x : findings) std::cout << x.to_string() << "\n";
      std::cout << f.file << ": " << errors << " error(s), " << warnings << " warning(s), audited in "
                << static_cast<int>(seconds * 1000) << " ms\n";
    }
    return audit::has_error(findings) ? kExitFailure : kExitOk;
  } catch (const UserError& e) {
    return usage_error(e.error().message, e.error().hint, e.error().code);
  }
}
#endif

CommandRegistration audit_command{Command{
    "audit", "Check a CUDA kernel source with the Clang 19 audit (exit 1 on an error finding).",
    [](CLI::App& sub) -> std::function<int()> {
#ifdef CUSCHED_HAVE_AUDIT
      auto flags = std::make_shared<AuditFlags>();
      sub.add_option("file", flags->file, "the .cu file to audit");
      sub.add_option("--contract", flags->contract_path, "kernel contract JSON: kernel name and parameters");
      sub.add_option("--problem,-p", flags->problem, "check the kernel against this problem's kernel contract");
      sub.add_option("--header", flags->headers, "an in-memory include file, NAME=PATH (repeatable)");
      sub.add_option("--dynamic-smem", flags->dynamic_smem, "dynamic shared memory the launch plan requests (bytes)");
      sub.add_option("--max-smem", flags->max_smem, "shared memory limit per block (bytes)")->capture_default_str();
      sub.add_option("--ptxas-log", flags->ptxas_log_path, "NVRTC log of a --ptxas-options=-v compile");
      sub.add_flag("--json", flags->json, "print the findings as JSON");
      sub.add_flag("--no-pch", flags->no_pch, "parse the CUDA headers without the cached precompiled header");
      sub.add_flag("--docs", flags->docs, "print the rule reference (docs/audit.md) and exit");
      return [flags] { return run_audit(*flags); };
#else
      return [] {
        std::cerr << "cusched audit: this build has no audit stage. Configure with -DCUSCHED_WITH_AUDIT=ON and "
                     "install clang-19, libclang-19-dev and llvm-19-dev.\n";
        return static_cast<int>(kExitInternal);
      };
#endif
    }}};

}  // namespace
}  // namespace cusched::tools
