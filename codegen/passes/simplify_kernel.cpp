// Constant folding of every expression of a kernel.
#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"

namespace cusched {

void simplify_kernel(Kernel& k) {
  k.body = map_stmt_exprs(k.body, [](const Expr& e) { return simplify(e); });
}

}  // namespace cusched
