#pragma once
// How the audit drives Clang 19: tool paths (overridable by environment), the
// in-memory files it needs, and the device-only compiler invocation for sm_90a.
#include <map>
#include <memory>
#include <string>

#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace cusched::audit {

// CUSCHED_CLANG_RESOURCE_DIR, else /usr/lib/llvm-19/lib/clang/19.
std::string clang_resource_dir();
// CUSCHED_CUDA_PATH, else /usr/local/cuda.
std::string cuda_path();

// Absolute paths inside the in-memory part of the file system.
constexpr const char* kVirtualRoot = "/cusched-audit-virtual";
std::string virtual_include_dir();  // the device library headers: -I
std::string virtual_compat_dir();   // the empty texture_fetch_functions.h: -isystem
std::string virtual_source_path(const std::string& filename);
std::string prelude_path();  // includes every device library header, for the PCH

// Text of the prelude that the precompiled header is built from.
std::string prelude_text(const std::map<std::string, std::string>& headers);

// The real file system with the in-memory files laid over it.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> make_file_system(const std::map<std::string, std::string>& headers,
                                                                 const std::string* in_memory_source,
                                                                 const std::string& source_path);

// A fresh copy of the device-only invocation (driver run once per process);
// inputs and action are for the caller to set. Throws std::runtime_error when
// Clang cannot form an invocation (e.g. missing CUDA installation).
std::shared_ptr<clang::CompilerInvocation> device_invocation();

// The cc1 arguments behind device_invocation(), for the PCH cache key.
const std::string& device_invocation_fingerprint();

}  // namespace cusched::audit
