// sum_with_variance: a variance's final store also writes the sum of the same values
// (mean x count from its Welford accumulators) into the sum stage's buffer.
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"

namespace cusched::lowering {

// `write` (the variance's store at `idx`, its variables' values in order) followed by the
// store of `sum` into the buffer of the sum stage paired with the variance, where one is.
// The legality (dsl/sum_with_variance.h) keeps a paired variance at root with its values
// in global memory.
Stmt KernelBuilder::with_sum_store(const Ctx& c, const std::vector<Expr>& idx, Stmt write, const Expr& sum) {
  const std::string s = st_.sum_with(c.f.name);
  if (s.empty()) return write;
  if (c.self.scope != MemScope::Global)
    fail("internal-error", "The variance '" + c.f.name + "' paired with '" + s + "' is not stored in global memory.",
         "Report the schedule: the legality of sum_with_variance should have refused it.");
  const FuncDef& sf = def(s);
  return make_block({std::move(write), store_global(sf, idx, sum.type() == sf.dtype ? sum : cast(sf.dtype, sum))});
}

}  // namespace cusched::lowering
