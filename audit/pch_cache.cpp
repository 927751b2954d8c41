// Building and caching the precompiled header.
#include "audit/pch_cache.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <system_error>

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include "audit/clang_setup.h"

namespace cusched::audit {

namespace fs = std::filesystem;

std::string audit_cache_dir() {
  if (const char* d = std::getenv("CUSCHED_AUDIT_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/cusched/audit";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/cusched/audit";
  return "/tmp/cusched-audit";
}

namespace {
std::string cache_key(const std::map<std::string, std::string>& headers) {
  llvm::SHA256 h;
  auto feed = [&](const std::string& s) {
    h.update(s);
    h.update(llvm::StringRef("\0", 1));
  };
  feed(device_invocation_fingerprint());
  for (const auto& [name, contents] : headers) {
    feed(name);
    feed(contents);
  }
  std::string hex;
  for (uint8_t b : h.final()) {
    static const char* digits = "0123456789abcdef";
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex.substr(0, 24);
}

bool build_pch(const std::string& output, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs) {
  auto inv = device_invocation();
  auto& fe = inv->getFrontendOpts();
  fe.ProgramAction = clang::frontend::GeneratePCH;
  fe.Inputs = {clang::FrontendInputFile(prelude_path(), clang::InputKind(clang::Language::CUDA))};
  fe.OutputFile = output;
  inv->getPreprocessorOpts().ImplicitPCHInclude.clear();
  inv->getDiagnosticOpts().ShowCarets = false;
  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(new clang::TextDiagnosticBuffer(), /*ShouldOwnClient=*/true);
  ci.createFileManager(vfs);
  clang::GeneratePCHAction action;
  bool ok = ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
  return ok;
}
}  // namespace

std::string precompiled_header_for(const std::map<std::string, std::string>& headers,
                                   llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::string dir = audit_cache_dir();
  std::string path = dir + "/device-" + cache_key(headers) + ".pch";
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) > 0) return path;
  fs::create_directories(dir, ec);
  std::random_device rd;
  std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  if (!build_pch(temp, vfs)) {
    fs::remove(temp, ec);
    return "";
  }
  fs::rename(temp, path, ec);  // atomic: a concurrent builder's identical file may win
  if (ec) {
    fs::remove(temp, ec);
    return fs::exists(path) ? path : "";
  }
  return path;
}

void discard_precompiled_header(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace cusched::audit
