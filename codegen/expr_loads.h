#pragma once
// The loads an expression makes, for the passes and the emitter that inspect them.
#include <vector>

#include "dsl/expr.h"

namespace cusched {

// The Load nodes in `e`, each before the loads in its arguments, arguments in order.
inline void collect_loads_in(const Expr& e, std::vector<const ExprNode*>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load) out.push_back(e.get());
  for (const auto& a : e->args) collect_loads_in(a, out);
}
inline std::vector<const ExprNode*> loads_in(const Expr& e) {
  std::vector<const ExprNode*> out;
  collect_loads_in(e, out);
  return out;
}

}  // namespace cusched
