// A stage's loop nest (split, fuse, reorder, reverse, bind, unroll, vectorize): the
// loops from its schedule, at each loop what is placed there (placements.cpp), at the
// first reduction loop the reduction (reduction.cpp), at the first loop of a scanned
// variable the scan (scan.cpp), just inside the block loops the
// shared output tile (output_tile.cpp), and innermost the store of the stage's value.
#include <algorithm>

#include "codegen/lowering/kernel_builder.h"
#include "codegen/wgmma_layout.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

StageNest KernelBuilder::stage_nest(const FuncDef& f, const Realization& self) {
  const StageSchedule& s = st_.schedules.at(f.name);
  std::map<std::string, int64_t> base;
  for (size_t d = 0; d < f.vars.size(); ++d) base[f.vars[d]] = self.extent[d];
  if (f.is_reduction())
    for (const auto& r : f.body->rvars) base[r.name] = eval_int(r.extent_expr, st_.ctx.sizes);
  DerivedNest nest = derive_nest(s, base);
  std::map<std::string, Expr> orig;
  std::vector<Expr> pure_guards;
  for (size_t d = 0; d < f.vars.size(); ++d) {
    orig[f.vars[d]] = self.min[d] + nest.value[f.vars[d]];
    // A region placed by compute_at may reach past the stage's domain at the tails
    // of its consumer's loops; those points are not computed.
    int64_t full = eval_int(f.extents[d], st_.ctx.sizes), m = -1;
    if (!(is_const_int(self.min[d], &m) && m + self.extent[d] <= full))
      nest.guards.push_back(orig[f.vars[d]] < make_int(full));
  }
  if (f.is_reduction())
    for (const auto& r : f.body->rvars) orig[r.name] = nest.value[r.name];
  // A reverse scan's loops step through positions from the end: index N - 1 - position.
  if (f.is_scan() && (f.body->ival & kScanReverse)) {
    const int d = f.scan_dim();
    orig[f.vars[d]] = self.min[d] + (make_int(self.extent[d] - 1) - nest.value[f.vars[d]]);
  }
  Expr body = inline_stages(f.is_reduction() || f.is_scan() ? f.body->args[0] : f.body);
  body = substitute(body, orig);
  return {nest, with_size_values(body), orig};
}

// `caches`: copies made around the stage that it reads instead of their sources.
Stmt KernelBuilder::build_stage(const FuncDef& f, const Realization& self, Env env, bool in_thread, bool in_serial,
                                const Env& caches) {
  const StageSchedule& s = st_.schedules.at(f.name);
  StageNest sn = stage_nest(f, self);
  Ctx c{f, s, sn.nest, self, sn.body, sn.orig};
  return emit(c, 0, env, caches, in_thread, in_serial);
}

Stmt KernelBuilder::emit(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
  if (c.s.cache_write_scope == MemScope::Shared && c.f.is_reduction() && c.self.scope == MemScope::Global &&
      p == leading_block_loops(c))
    return emit_output_tile(c, p, env, caches, in_thread, in_serial);
  int r0 = first_reduction(c);
  if (r0 >= 0 && p == r0) return emit_reduction(c, env, caches, in_thread, in_serial);
  if (c.f.is_scan() && p == first_scan_loop(c)) return emit_scan(c, p, env, caches);
  if (p == static_cast<int>(c.nest.loops.size())) {
    std::vector<Expr> idx;
    for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(c.orig.at(c.f.vars[d]));
    Expr value = lower_value(c.body, env, caches, c.s);
    return guarded(c.nest.guards, make_store(c.self.buffer, flat_index(c.self, idx), value));
  }
  const DerivedLoop& l = c.nest.loops[p];
  bool t = in_thread || is_thread_axis(l.info.axis);
  bool s = in_serial || (l.info.axis == GpuAxis::None);
  Stmt body = with_placements(c, p, env, caches, t, s,
                              [&](const Env& e2, const Env& c2) { return emit(c, p + 1, e2, c2, t, s); });
  return make_loop(l, body);
}

// Loops p .. stop-1 of the nest, each with what is placed at it; `leaf` builds the
// statements inside loop stop-1.
Stmt KernelBuilder::loops_down_to(Ctx& c, int p, int stop, const Env& env, const Env& caches, bool in_thread,
                                  bool in_serial, const std::function<Stmt(const Env&, const Env&)>& leaf) {
  if (p == stop) return leaf(env, caches);
  const DerivedLoop& l = c.nest.loops[p];
  bool t = in_thread || is_thread_axis(l.info.axis);
  bool s = in_serial || l.info.axis == GpuAxis::None;
  Stmt body = with_placements(c, p, env, caches, t, s, [&](const Env& e2, const Env& c2) {
    return loops_down_to(c, p + 1, stop, e2, c2, t, s, leaf);
  });
  return make_loop(l, body);
}

// The loop, preceded by the first copies of its software pipeline if it has one.
Stmt KernelBuilder::make_loop(const DerivedLoop& l, Stmt body, bool keep_kind) {
  LoopKind k = keep_kind ? l.info.kind : (l.info.kind == LoopKind::Vectorized ? LoopKind::Unrolled : l.info.kind);
  Stmt loop = make_for(l.var, make_int(0), make_int(l.info.extent), k, l.info.axis, body);
  auto it = prologue_.find(l.var);
  if (it == prologue_.end()) return loop;
  // The pipeline's buffers live across the loop's iterations: allocated around it.
  Stmt s = make_block({it->second.copies, loop});
  for (auto a = it->second.buffers.rbegin(); a != it->second.buffers.rend(); ++a)
    s = allocate_realization(a->first, a->second, s);
  prologue_.erase(it);
  return s;
}

// A lower bound of the block's thread count: the product over thread axes of the
// stage's own thread loops (and the 32 lanes of each warp for tensor cores).
int64_t KernelBuilder::threads_at_least(const Ctx& c) {
  std::map<GpuAxis, int64_t> extent;
  for (const auto& l : c.nest.loops)
    if (is_thread_axis(l.info.axis)) extent[l.info.axis] = std::max(extent[l.info.axis], l.info.extent);
  if (!c.s.tensor_core_shape.empty())
    extent[GpuAxis::ThreadX] = std::max<int64_t>(extent[GpuAxis::ThreadX], uses_wgmma(c) ? kWgmmaThreads : 32);
  int64_t n = 1;
  for (const auto& [axis, e] : extent) n *= e;
  return n;
}

int KernelBuilder::first_reduction(const Ctx& c) const {
  for (size_t p = 0; p < c.nest.loops.size(); ++p)
    if (c.nest.loops[p].info.reduction) return static_cast<int>(p);
  return -1;
}

int KernelBuilder::leading_block_loops(const Ctx& c) const {
  int nb = 0;
  while (nb < static_cast<int>(c.nest.loops.size()) && is_block_axis(c.nest.loops[nb].info.axis)) ++nb;
  return nb;
}

}  // namespace cusched::lowering
