#include <functional>

#include "codegen/passes/passes.h"
#include "dsl/error.h"

namespace cusched {

void check_register_arrays(const Kernel& k) {
  std::function<void(const Stmt&)> scan = [&](const Stmt& s) {
    if (s->kind == StmtKind::Allocate && s->scope == MemScope::Register && s->size > kMaxRegisterArrayElements)
      fail("register-array-too-large",
           "Kernel " + k.name + " gives each thread a register array '" + s->buffer + "' of " +
               std::to_string(s->size) + " elements; a thread has at most 255 registers, and arrays above " +
               std::to_string(kMaxRegisterArrayElements) +
               " elements are a schedule mistake (often a staged region that spans the whole tensor because its index "
               "goes through min, max or a select).",
           "Stage a smaller region: cache_read into registers at an inner loop, split the loops it covers, or stage "
           "into shared memory.");
    for (const auto& c : s->body) scan(c);
  };
  scan(k.body);
}

}  // namespace cusched
