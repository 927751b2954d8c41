// Registering LLVM's targets once per process.
#include "audit/device_target.h"

#include <mutex>

#include <llvm/Support/TargetSelect.h>

namespace cusched::audit {

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
  });
}

}  // namespace cusched::audit
