// A scan (cumsum, cumprod; reverse, exclusive) from the first loop of its scanned
// variable inward (those loops are the stage's innermost, outer before inner). Without
// cross_thread_scan every thread runs them in order with a running total in a register.
// With it (a loop bound to threadIdx.x across the block, `W` threads), the block steps
// through the line one tile at a time (the loops outside the thread loop, serial):
//   - each thread loads the V elements of the loops inside the thread loop into
//     registers (vectorized where scheduled) and scans them in place (V - 1 steps);
//   - a Scan across the W threads turns each thread's last element (its total) into the
//     exclusive prefix of the threads before it, and gives every thread the tile's total;
//   - each thread writes running total + prefix + its element (exclusive: the element
//     before it) and adds the tile's total to the running total.
// Every element is read once and written once; a reverse scan runs its positions from
// the end (the stage's index N - 1 - position, stage_nest).
#include "codegen/lowering/kernel_builder.h"
#include "dsl/expr_substitute.h"
#include "dsl/scan_loops.h"

namespace cusched::lowering {

int KernelBuilder::first_scan_loop(const Ctx& c) const {
  if (!c.f.is_scan()) return -1;
  return static_cast<int>(c.nest.loops.size() - scan_loops(c.f, c.s).loops.size());
}

Stmt KernelBuilder::emit_scan(Ctx& c, int p0, const Env& env, const Env& caches) {
  const auto& loops = c.nest.loops;
  const int n = static_cast<int>(loops.size());
  const ReduceOp op = c.f.body->reduce_op;
  const bool exclusive = c.f.body->ival & kScanExclusive;
  const DType t = c.f.dtype;
  const Expr identity = reduction_identity(op, t);
  auto combine = [&](const Expr& a, const Expr& b) { return op == ReduceOp::Product ? a * b : a + b; };
  auto reg = [&](const std::string& buffer, const Expr& i) { return make_load(buffer, t, {i}); };
  const std::string carry = c.f.name + "_carry";
  const Expr carried = reg(carry, make_int(0));
  const Expr value = lower_value(c.body, env, caches, c.s);
  std::vector<Expr> idx;
  for (const auto& v : c.f.vars) idx.push_back(c.orig.at(v));
  const Expr out_index = flat_index(c.self, idx);
  int tl = -1;
  for (int q = p0; q < n; ++q)
    if (loops[q].info.name == c.s.scan_thread_loop) tl = q;
  auto over = [&](int from, int to, Stmt leaf, bool keep_kind) {
    for (int q = to - 1; q >= from; --q) leaf = make_loop(loops[q], leaf, keep_kind);
    return leaf;
  };

  if (tl < 0) {
    // Serial: the running total through every position in order.
    Stmt step = exclusive ? make_block({make_store(c.self.buffer, out_index, carried),
                                        make_store(carry, make_int(0), combine(carried, value))})
                          : make_block({make_store(carry, make_int(0), combine(carried, value)),
                                        make_store(c.self.buffer, out_index, carried)});
    Stmt nest = over(p0, n, guarded(c.nest.guards, step), false);
    return make_allocate(carry, MemScope::Register, t, 1, make_block({make_store(carry, make_int(0), identity), nest}));
  }

  // Across the block's threads, one tile per iteration of the loops outside the thread loop.
  const DerivedLoop& thread_loop = loops[tl];
  const std::string x = c.f.name + "_items", part = c.f.name + "_prefix", total = c.f.name + "_total";
  Expr item = make_int(0);
  int64_t items = 1;
  for (int q = n - 1; q > tl; --q) {
    item = item + make_var(loops[q].var) * make_int(items);
    items *= loops[q].info.extent;
  }
  const Expr guard = conjunction(c.nest.guards);
  Stmt load = guard.defined() ? make_if(guard, make_store(x, item, value), make_store(x, item, identity))
                              : make_store(x, item, value);
  std::vector<Stmt> tile = {over(tl + 1, n, load, true)};
  if (items > 1) {
    // The thread's own elements, scanned in registers.
    const std::string q = c.f.name + "_q";
    const Expr qv = make_var(q);
    tile.push_back(make_for(q, make_int(1), make_int(items - 1), LoopKind::Unrolled, GpuAxis::None,
                            make_store(x, qv, combine(reg(x, qv - make_int(1)), reg(x, qv)))));
  }
  tile.push_back(make_store(part, make_int(0), reg(x, make_int(items - 1))));
  tile.push_back(make_scan(part, make_int(0), total, op, thread_loop.info.extent));
  if (exclusive) {
    // Each element's own prefix excludes it: the thread's scan shifted by one.
    if (items > 1) {
      const std::string r = c.f.name + "_r";
      const Expr at = make_int(items - 1) - make_var(r);
      tile.push_back(make_for(r, make_int(0), make_int(items - 1), LoopKind::Unrolled, GpuAxis::None,
                              make_store(x, at, reg(x, at - make_int(1)))));
    }
    tile.push_back(make_store(x, make_int(0), identity));
  }
  Expr before = combine(carried, reg(part, make_int(0)));
  tile.push_back(over(
      tl + 1, n, guarded(c.nest.guards, make_store(c.self.buffer, out_index, combine(before, reg(x, item)))), true));
  tile.push_back(make_store(carry, make_int(0), combine(carried, reg(total, make_int(0)))));
  Stmt body = make_block(tile);
  body = make_allocate(total, MemScope::Register, t, 1, body);
  body = make_allocate(part, MemScope::Register, t, 1, body);
  body = make_allocate(x, MemScope::Register, t, items, body);
  Stmt nest = over(p0, tl, make_loop(thread_loop, body), false);
  return make_allocate(carry, MemScope::Register, t, 1, make_block({make_store(carry, make_int(0), identity), nest}));
}

}  // namespace cusched::lowering
