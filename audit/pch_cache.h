#pragma once
// The precompiled header of the CUDA headers and the device library: built
// once per (Clang version, flags, header contents) and cached on disk.
#include <map>
#include <string>

#include <clang/Basic/LLVM.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace cusched::audit {

// CUSCHED_AUDIT_CACHE_DIR, else $XDG_CACHE_HOME/cusched/audit, else
// $HOME/.cache/cusched/audit, else /tmp/cusched-audit.
std::string audit_cache_dir();

// The path of a usable PCH for these headers, built now if missing; "" when it
// cannot be built (the audit then parses without it).
std::string precompiled_header_for(const std::map<std::string, std::string>& headers,
                                   llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs);

// Removes a cached PCH that Clang refused to load, so the next call rebuilds it.
void discard_precompiled_header(const std::string& path);

}  // namespace cusched::audit
