// The audit entry points: one Clang run (facts + device IR), then every rule.
#include "audit/audit.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "audit/audit_action.h"
#include "audit/clang_setup.h"
#include "audit/device_target.h"
#include "audit/parse_diagnostics.h"
#include "audit/pch_cache.h"
#include "audit/rule.h"
#include "codegen/include_policy.h"
#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::audit {

namespace {

struct ClangRun {
  SourceFacts facts;
  std::vector<ParseError> errors;
  std::unique_ptr<llvm::Module> module;
  bool pch_rejected = false;
};

void run_clang(ClangRun& run, llvm::LLVMContext& context, const std::string& compile_path, const std::string& display,
               const std::string& pch, const DisplayName& display_name, const IsAudited& is_audited,
               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs) {
  auto inv = device_invocation();
  auto& fe = inv->getFrontendOpts();
  fe.ProgramAction = clang::frontend::EmitLLVMOnly;
  fe.Inputs = {clang::FrontendInputFile(compile_path, clang::InputKind(clang::Language::CUDA))};
  fe.OutputFile = "-";
  inv->getCodeGenOpts().MainFileName = display;
  inv->getPreprocessorOpts().ImplicitPCHInclude = pch;
  inv->getDiagnosticOpts().ShowCarets = false;  // no "N errors generated" on stderr

  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  auto* diagnostics = new ParseDiagnostics(display_name);
  ci.createDiagnostics(diagnostics, /*ShouldOwnClient=*/true);
  ci.createFileManager(vfs);
  run.facts.main_file = display;
  AuditAction action(&context, run.facts, display_name, is_audited);
  ci.ExecuteAction(action);
  run.errors = diagnostics->errors();
  run.pch_rejected = !pch.empty() && diagnostics->mentions_precompiled_header();
  run.module = action.takeModule();
}

std::vector<Finding> run_audit(const std::string& source, const std::string& display, const std::string& compile_path,
                               const AuditOptions& options, size_t* kernels_found = nullptr) {
  std::set<std::string> library;
  for (const auto& [name, text] : options.headers) library.insert(name);
  if (auto e = include_error(source, library)) throw UserError(*e);
  initialize_llvm_targets();
  auto vfs = make_file_system(options.headers, &source, compile_path);
  const std::string include_prefix = virtual_include_dir() + "/";
  DisplayName display_name = [&](const std::string& path) {
    if (path == compile_path) return display;
    if (path.rfind(include_prefix, 0) == 0) return path.substr(include_prefix.size());
    return path;
  };
  IsAudited is_audited = [&](const std::string& path) {
    return path.rfind(include_prefix, 0) != 0 && path != prelude_path();
  };

  llvm::LLVMContext context;
  ClangRun run;
  std::string pch = options.use_pch ? precompiled_header_for(options.headers, vfs) : "";
  run_clang(run, context, compile_path, display, pch, display_name, is_audited, vfs);
  if (run.pch_rejected) {  // a stale or damaged cache entry: drop it and parse without it
    discard_precompiled_header(pch);
    run = ClangRun{};
    run_clang(run, context, compile_path, display, "", display_name, is_audited, vfs);
  }

  Report report;
  const RuleInfo& parse_rule = rule_by_id("clang-parse").info();
  constexpr size_t kMaxParseFindings = 10;
  for (size_t i = 0; i < run.errors.size() && i < kMaxParseFindings; ++i) {
    const auto& e = run.errors[i];
    SourceLocation where = e.location.file.empty() ? SourceLocation{display, 0, 0} : e.location;
    report.add(parse_rule, where,
               "Clang 19 rejects this code (" + e.message +
                   "); NVRTC may still accept it, but the audit of this kernel is incomplete.",
               "If NVRTC compiles it, this is a Clang/NVRTC difference, not a fault of the kernel; write the "
               "construct in standard CUDA C++ so every rule can check it.");
  }
  if (kernels_found) *kernels_found = run.facts.kernels.size();
  for (const auto& rule : all_rules()) rule->check_source(run.facts, options, report);
  if (run.module && run.errors.empty()) {
    DeviceModule dm{*run.module, display_name};
    for (const auto& rule : all_rules()) rule->check_device_ir(dm, run.facts, options, report);
  }
  return report.take();
}

}  // namespace

std::vector<Finding> audit_source(const std::string& source, const std::string& filename, const AuditOptions& options) {
  return run_audit(source, filename, virtual_source_path(filename), options);
}

std::vector<Finding> audit_file(const std::string& path, const AuditOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail("audit-file-unreadable", "The file '" + valid_utf8(path) + "' cannot be read as a regular file.",
         "Check the path and its permissions, then run the audit again.");
  std::string text = read_file_bounded(path, kMaxSourceBytes, "The kernel source");
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  size_t kernels = 0;
  auto findings =
      run_audit(text, path, ec ? virtual_source_path(path) : absolute.lexically_normal().string(), options, &kernels);
  bool parse_failed = false;
  for (const auto& f : findings) parse_failed |= f.rule == "clang-parse";
  if (kernels == 0 && !parse_failed)
    fail("no-kernel", "The file '" + valid_utf8(path) + "' defines no __global__ kernel, so there is nothing to audit.",
         "Audit the .cu file that defines the kernel (a __global__ function).");
  return findings;
}

}  // namespace cusched::audit
