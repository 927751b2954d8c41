// The device-only Clang invocation and the in-memory files it relies on.
#include "audit/clang_setup.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/Utils.h>
#include <llvm/Support/MemoryBuffer.h>

namespace cusched::audit {

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::string(fallback);
}

struct InvocationTemplate {
  std::shared_ptr<clang::CompilerInvocation> invocation;
  std::string fingerprint;
};

InvocationTemplate build_template() {
  std::string resource = clang_resource_dir();
  std::string cuda = cuda_path();
  std::vector<std::string> args = {"clang++",
                                   "-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "--cuda-gpu-arch=sm_90a",
                                   "--cuda-path=" + cuda,
                                   "-resource-dir=" + resource,
                                   "-nocudalib",
                                   "-Wno-unknown-cuda-version",
                                   "-w",
                                   "-std=c++17",
                                   "-O1",
                                   "-gline-tables-only",
                                   "-isystem",
                                   virtual_compat_dir(),
                                   "-isystem",
                                   cuda + "/include/cccl",
                                   "-I",
                                   virtual_include_dir(),
                                   "-fsyntax-only",
                                   virtual_source_path("input.cu")};
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  auto diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto* buffer = new clang::TextDiagnosticBuffer();
  auto diags = llvm::makeIntrusiveRefCnt<clang::DiagnosticsEngine>(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(),
                                                                   diag_opts.get(), buffer, /*ShouldOwnClient=*/true);
  std::map<std::string, std::string> none;
  clang::CreateInvocationOptions opts;
  opts.Diags = diags;
  opts.VFS = make_file_system(none, nullptr, "");
  std::vector<std::string> cc1;
  opts.CC1Args = &cc1;
  std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, opts);
  if (!inv) {
    std::string why;
    for (auto it = buffer->err_begin(); it != buffer->err_end(); ++it) why += " " + it->second;
    throw std::runtime_error("Clang could not set up a CUDA device compilation (resource dir " + resource +
                             ", CUDA path " + cuda + "):" + why +
                             " Set CUSCHED_CLANG_RESOURCE_DIR and CUSCHED_CUDA_PATH to the right folders.");
  }
  InvocationTemplate t;
  t.invocation = std::move(inv);
  t.fingerprint = clang::getClangFullVersion();
  for (const auto& a : cc1) t.fingerprint += "\n" + a;
  return t;
}

const InvocationTemplate& invocation_template() {
  static std::once_flag once;
  static InvocationTemplate t;
  std::call_once(once, [] { t = build_template(); });
  return t;
}
}  // namespace

std::string clang_resource_dir() { return env_or("CUSCHED_CLANG_RESOURCE_DIR", "/usr/lib/llvm-19/lib/clang/19"); }
std::string cuda_path() { return env_or("CUSCHED_CUDA_PATH", "/usr/local/cuda"); }

std::string virtual_include_dir() { return std::string(kVirtualRoot) + "/include"; }
std::string virtual_compat_dir() { return std::string(kVirtualRoot) + "/compat"; }
std::string virtual_source_path(const std::string& filename) {
  std::string name = filename;
  while (!name.empty() && name.front() == '/') name.erase(0, 1);
  return std::string(kVirtualRoot) + "/src/" + (name.empty() ? std::string("input.cu") : name);
}
std::string prelude_path() { return std::string(kVirtualRoot) + "/prelude.cuh"; }

std::string prelude_text(const std::map<std::string, std::string>& headers) {
  std::string text = "// The device library, precompiled for the audit.\n";
  for (const auto& [name, contents] : headers) text += "#include \"" + name + "\"\n";
  return text;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> make_file_system(const std::map<std::string, std::string>& headers,
                                                                 const std::string* in_memory_source,
                                                                 const std::string& source_path) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  auto add = [&](const std::string& path, const std::string& text) {
    memory->addFile(path, /*ModificationTime=*/0, llvm::MemoryBuffer::getMemBufferCopy(text, path));
  };
  // CUDA 13 removed this header; Clang 19's CUDA wrapper still includes it.
  add(virtual_compat_dir() + "/texture_fetch_functions.h", "// empty: removed in CUDA 13\n");
  for (const auto& [name, contents] : headers) add(virtual_include_dir() + "/" + name, contents);
  add(prelude_path(), prelude_text(headers));
  if (in_memory_source) add(source_path, *in_memory_source);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);
  return overlay;
}

std::shared_ptr<clang::CompilerInvocation> device_invocation() {
  return std::make_shared<clang::CompilerInvocation>(*invocation_template().invocation);
}

const std::string& device_invocation_fingerprint() { return invocation_template().fingerprint; }

}  // namespace cusched::audit
