#include "codegen/cuda_vector_access.h"

#include "codegen/linear_form.h"

#include <algorithm>
#include <map>

namespace cusched {

namespace {

void collect_loads(const Expr& e, std::vector<const ExprNode*>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load) out.push_back(e.get());
  for (const auto& a : e->args) collect_loads(a, out);
}

bool vectorizable_buffer(const EmittedBuffer* b) {
  return b && b->dtype == DType::f32 && (b->scope == MemScope::Global || b->scope == MemScope::Shared);
}

}  // namespace

bool is_aligned_lane_index(const Expr& index, const std::string& var, int64_t first, int64_t lanes) {
  auto form = linear_form(index, true);
  if (!form) return false;
  // An opaque term may not depend on var: then the index is not var plus a constant stride.
  for (const auto& [key, term] : form->atoms)
    if (mentions_var(term, var)) return false;
  for (const auto& [atom, c] : form->coeff)
    if (atom != var && c % lanes != 0) return false;
  if (!form->coeff.count(var) || form->coeff.at(var) != 1) return false;
  return (form->constant + first) % lanes == 0;
}

std::optional<VectorAccessPlan> plan_vector_access(
    const StmtNode& loop, const std::function<const EmittedBuffer*(const std::string&)>& lookup) {
  int64_t extent = 0, first = 0;
  if (!is_const_int(loop.extent, &extent) || !is_const_int(loop.min, &first)) return std::nullopt;
  if (extent != 2 && extent != 4) return std::nullopt;
  auto unwrap = [](const StmtNode* s) {
    while (s && s->kind == StmtKind::Block && s->body.size() == 1) s = s->body[0].get();
    return s;
  };
  const StmtNode* store = unwrap(loop.body.empty() ? nullptr : loop.body[0].get());
  const StmtNode* guard = nullptr;
  if (store && store->kind == StmtKind::If && store->body.size() == 1 && !mentions_var(store->cond, loop.var)) {
    guard = store;
    store = unwrap(store->body[0].get());
  }
  if (!store || store->kind != StmtKind::Store) return std::nullopt;
  const EmittedBuffer* target = lookup(store->buffer);
  const bool accumulate = !mentions_var(store->index, loop.var);
  if (accumulate) {
    if (!target || target->scope != MemScope::Register) return std::nullopt;
  } else {
    if (!vectorizable_buffer(target)) return std::nullopt;
    if (!is_aligned_lane_index(store->index, loop.var, first, extent)) return std::nullopt;
  }

  VectorAccessPlan plan;
  plan.lanes = static_cast<int>(extent);
  plan.first = first;
  plan.store = store;
  plan.guard = guard;
  plan.accumulate = accumulate;
  std::vector<const ExprNode*> loads;
  collect_loads(store->value, loads);
  for (const ExprNode* l : loads) {
    if (l->args.size() != 1 || !mentions_var(l->args[0], loop.var)) continue;
    const EmittedBuffer* b = lookup(l->name);
    if (b && b->scope == MemScope::Register) continue;  // read lane by lane
    if (l->name == store->buffer || !vectorizable_buffer(b)) return std::nullopt;
    if (!is_aligned_lane_index(l->args[0], loop.var, first, extent)) return std::nullopt;
    // A load whose index holds another load of var cannot be read as one vector.
    std::vector<const ExprNode*> inner;
    collect_loads(l->args[0], inner);
    for (const ExprNode* i : inner)
      if (mentions_var(i->args.empty() ? Expr() : i->args[0], loop.var)) return std::nullopt;
    if (std::find(plan.vector_loads.begin(), plan.vector_loads.end(), l) == plan.vector_loads.end())
      plan.vector_loads.push_back(l);
  }
  return plan;
}

}  // namespace cusched
