// fuse_epilogue: a reduction's final values stored through the expression of the
// pointwise stage folded into it, into that stage's buffer (dsl/epilogue.h).
#include "dsl/epilogue.h"

#include "codegen/lowering/kernel_builder.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// The store of stage c's final value at `idx` (its variables' values, in order). With a
// consumer folded in, the consumer's expression at the same point takes `value` for its
// reads of the stage; a store into an on-chip copy (a shared output tile) keeps the
// stage's own value, which the copy to global memory passes through here in turn.
Stmt KernelBuilder::store_result(const Ctx& c, const std::vector<Expr>& idx, const Expr& value) {
  const std::string folded = st_.folded_epilogue(c.f.name);
  if (folded.empty() || c.self.scope != MemScope::Global)
    return make_store(c.self.buffer, flat_index(c.self, idx), value);
  const FuncDef& y = def(folded);
  const std::string placeholder = c.f.name + "_result";
  Expr body = rewrite(epilogue_body(st_, y.name), [&](const Expr& x) -> Expr {
    return x->op == ExprOp::Load && x->name == c.f.name ? make_var(placeholder) : x;
  });
  std::map<std::string, Expr> at;
  for (size_t d = 0; d < y.vars.size(); ++d) at[y.vars[d]] = idx[d];
  Expr lowered = lower_value(with_size_values(substitute(body, at)), {}, {}, st_.schedules.at(y.name));
  return store_global(y, idx, substitute(lowered, {{placeholder, value}}));
}

// The store of `value` into the global buffer of stage `y` at `idx` (y's variables' values,
// in order), a stage whose values another stage's kernel writes.
Stmt KernelBuilder::store_global(const FuncDef& y, const std::vector<Expr>& idx, const Expr& value) {
  std::vector<Expr> zeros(idx.size(), make_int(0));
  const Realization out = dense(y.name, MemScope::Global, zeros, eval_shape(y.extents, st_.ctx.sizes));
  used_.insert(y.name);
  return make_store(y.name, flat_index(out, idx), value);
}

}  // namespace cusched::lowering
