#include "codegen/cuda_vector_access.h"

#include <algorithm>
#include <map>

#include "codegen/expr_loads.h"
#include "codegen/linear_form.h"

namespace cusched {

namespace {

// Loads outside the Selects that are read as one vector, and those Selects.
void collect_loads_and_selects(const Expr& e, const std::function<bool(const ExprNode&)>& vector_select,
                               std::vector<const ExprNode*>& loads, std::vector<const ExprNode*>& selects) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Select && vector_select(*e)) {
    if (std::find(selects.begin(), selects.end(), e.get()) == selects.end()) selects.push_back(e.get());
    return;
  }
  if (e->op == ExprOp::Load) loads.push_back(e.get());
  for (const auto& a : e->args) collect_loads_and_selects(a, vector_select, loads, selects);
}

bool vectorizable_buffer(const EmittedBuffer* b) {
  return b && b->dtype == DType::f32 && (b->scope == MemScope::Global || b->scope == MemScope::Shared);
}

}  // namespace

int aligned_lane_direction(const Expr& index, const std::string& var, int64_t first, int64_t lanes) {
  auto form = linear_form(index, true);
  if (!form) return 0;
  // An opaque term may not depend on var: then the index is not var plus a constant stride.
  for (const auto& [key, term] : form->atoms)
    if (mentions_var(term, var)) return 0;
  for (const auto& [atom, c] : form->coeff)
    if (atom != var && c % lanes != 0) return 0;
  if (!form->coeff.count(var)) return 0;
  const int64_t c = form->coeff.at(var);
  auto multiple = [&](int64_t x) { return ((x % lanes) + lanes) % lanes == 0; };
  if (c == 1) return multiple(form->constant + first) ? 1 : 0;
  if (c == -1) return multiple(form->constant - (first + lanes - 1)) ? -1 : 0;
  return 0;
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
  const bool register_target = !accumulate && target && target->scope == MemScope::Register;
  int store_direction = 1;
  if (accumulate) {
    if (!target || target->scope != MemScope::Register) return std::nullopt;
  } else if (!register_target) {
    if (!vectorizable_buffer(target)) return std::nullopt;
    store_direction = aligned_lane_direction(store->index, loop.var, first, extent);
    if (store_direction == 0) return std::nullopt;
  }

  VectorAccessPlan plan;
  plan.descending_store = store_direction < 0;
  plan.lanes = static_cast<int>(extent);
  plan.first = first;
  plan.store = store;
  plan.guard = guard;
  plan.accumulate = accumulate;
  plan.register_target = register_target;
  // A vector load: of another f32 global or shared buffer at an aligned base + v or - v,
  // whose index holds no load that depends on v; its direction (0: none).
  auto vector_load = [&](const ExprNode& l) {
    if (l.op != ExprOp::Load || l.args.size() != 1 || l.name == store->buffer || !vectorizable_buffer(lookup(l.name)))
      return 0;
    const int direction = aligned_lane_direction(l.args[0], loop.var, first, extent);
    for (const ExprNode* i : loads_in(l.args[0]))
      if (mentions_var(i->args.empty() ? Expr() : i->args[0], loop.var)) return 0;
    return direction;
  };
  auto vector_select = [&](const ExprNode& n) {
    if (mentions_var(n.args[0], loop.var) || vector_load(*n.args[1]) != 1) return false;
    const ExprNode& other = *n.args[2];
    if (other.op != ExprOp::Load || other.args.size() != 1) return false;
    const EmittedBuffer* b = lookup(other.name);
    return b && b->scope == MemScope::Register && b->dtype == DType::f32 && loads_in(other.args[0]).empty();
  };
  std::vector<const ExprNode*> loads;
  collect_loads_and_selects(store->value, vector_select, loads, plan.vector_selects);
  for (const ExprNode* l : loads) {
    if (l->args.size() != 1 || !mentions_var(l->args[0], loop.var)) continue;
    const EmittedBuffer* b = lookup(l->name);
    if (b && b->scope == MemScope::Register) continue;  // read lane by lane
    const int direction = vector_load(*l);
    if (direction == 0) return std::nullopt;
    if (std::find(plan.vector_loads.begin(), plan.vector_loads.end(), l) == plan.vector_loads.end()) {
      plan.vector_loads.push_back(l);
      plan.descending_loads.push_back(direction < 0);
    }
  }
  return plan;
}

}  // namespace cusched
