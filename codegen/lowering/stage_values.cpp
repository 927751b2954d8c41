// A stage's values: loads of inlined stages expanded (compute_inline), loads of
// tensors lowered to flat loads of their realizations, the operand rounding of the
// stage's precision (set_precision) and its fast-math calls (set_math fast).
#include "codegen/fast_math.h"
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/inlined_stages.h"
#include "dsl/padded_load.h"

namespace cusched::lowering {

std::vector<int64_t> KernelBuilder::source_shape(const std::string& name) const {
  if (const TensorDef* in = st_.ctx.pipeline.find_input(name)) return eval_shape(in->shape, st_.ctx.sizes);
  return eval_shape(def(name).extents, st_.ctx.sizes);
}

// Every load in `e` made padded (reading 0 outside its source).
static Expr all_loads_padded(const Expr& e) {
  return rewrite(e, [](const Expr& x) { return x->op == ExprOp::Load && !is_padded_load(x) ? padded(x) : x; });
}

// Expands loads of inlined stages in `e`. A padded load of an inlined stage becomes its
// body where the indices lie inside the stage's domain and the padding value elsewhere;
// the body's own loads are then made padded too, so that its indices (which may leave
// their sources there) are guarded wherever they are read, copies included.
Expr KernelBuilder::inline_stages(const Expr& e) const {
  return expand_inlined_stages(st_, e, [&](const Expr& load, const Expr& body) {
    return select(inside_shape(load->args, source_shape(load->name)), all_loads_padded(body), padding_value(*load));
  });
}

Expr KernelBuilder::with_size_values(const Expr& e) const {
  return rewrite(e, [&](const Expr& x) -> Expr {
    if (x->op == ExprOp::SizeParam) return make_int(eval_int(x, st_.ctx.sizes), x.type());
    return x;
  });
}

// Lowers the loads of a value expression to flat loads of buffers, with the stage's
// operand rounding (unless `round_operands` is false: the instruction that reads the
// value converts it itself, as wgmma truncates to tf32) and, under math "fast", its
// fast-math calls.
Expr KernelBuilder::lower_value(const Expr& e, const Env& env, const Env& caches, const StageSchedule& s,
                                bool round_operands) {
  const Precision precision = round_operands ? s.precision : Precision::f32;
  Expr lowered = rewrite(e, [&](const Expr& x) -> Expr {
    if (x->op != ExprOp::Load || x->args.size() == 0) return x;
    if (x->args.size() == 1 && !x->tensor && !x->func && st_.stage_def(x->name) == nullptr &&
        !st_.ctx.pipeline.find_input(x->name))
      return x;  // already flat
    Expr out = load(x->name, x->args, x.type(), env, caches);
    // A padded load of memory reads its padding value outside the source; a staged copy
    // holds the padding already.
    if (is_padded_load(x) && !caches.count(x->name))
      out = select(inside_shape(x->args, source_shape(x->name)), out, padding_value(*x));
    // 3xtf32 operands stay f32: the tensor-core instruction splits them itself.
    if (precision != Precision::f32 && precision != Precision::x3tf32 && dtype_is_float(x.type()))
      out = make_call("round_" + precision_name(precision), {out}, x.type());
    return out;
  });
  return s.math == "fast" ? with_fast_math(lowered) : lowered;
}

Expr KernelBuilder::load(const std::string& name, const std::vector<Expr>& args, DType t, const Env& env,
                         const Env& caches) {
  auto c = caches.find(name);
  if (c != caches.end() && c->second.tail) {
    // Shared below the tail's start, else the copying thread's register; resolve_register_tails
    // proves that thread is the reader and rewrites the register index.
    const RegisterTail& tail = *c->second.tail;
    const int64_t step = tail.threads * tail.lanes;
    const Expr f = flat_index(c->second, args);
    const Expr reg =
        (f / make_int(step) - make_int(tail.start / step)) * make_int(tail.lanes) + f % make_int(tail.lanes);
    return select(f < make_int(tail.start), make_load(tail.shared, t, {f}), make_load(tail.registers, t, {reg}));
  }
  if (c != caches.end()) return make_load(c->second.buffer, t, {flat_index(c->second, args)});
  auto r = env.find(name);
  if (r != env.end()) {
    if (r->second.scope == MemScope::Global) used_.insert(r->second.buffer);
    return make_load(r->second.buffer, t, {flat_index(r->second, args)});
  }
  auto g = globals_.find(name);
  if (g != globals_.end() && g->second.role == BufferRole::Input) {
    used_.insert(name);
    std::vector<Expr> z(g->second.shape.size(), make_int(0));
    return make_load(name, t, {flat_index(dense(name, MemScope::Global, z, g->second.shape), args)});
  }
  fail("producer-not-visible",
       "Stage '" + name +
           "' is read where it has not been computed: it is computed inside another stage's loop that does not enclose "
           "this read.",
       "Compute it at root, or at a loop that encloses every stage that reads it.");
}

}  // namespace cusched::lowering
