// cache_read without a pipeline: a synchronous copy of the region into shared memory by
// the block's threads (16 bytes per thread and step where alignment is provable), or
// into each thread's registers (scope register).
#include "codegen/lowering/kernel_builder.h"

namespace cusched::lowering {

// One unit of a synchronous shared copy: an element, or a chunk of 4 elements copied
// by a Vectorized loop that the emitter turns into one float4 load and store.
// `store` makes the store of the elements at coordinates x, lane `lane` of the unit.
Stmt KernelBuilder::unit_copy(const StagedCopy& cp, int64_t lanes, const std::vector<Expr>& a,
                              const std::function<Stmt(const std::vector<Expr>&, const Expr&)>& store) {
  const CacheRead& cr = cp.cr;
  if (lanes == 1) return store(a, make_int(0));
  const std::string lv = cr.name + "_v" + std::to_string(uid_++);
  std::vector<Expr> lane = a;
  lane.back() = lane.back() + make_var(lv);
  return make_for(lv, make_int(0), make_int(lanes), LoopKind::Vectorized, GpuAxis::None, store(lane, make_var(lv)));
}

// The store of the source's elements at coordinates x into the shared copy.
Stmt KernelBuilder::shared_store(const Placement& pl, const StagedCopy& cp, const std::vector<Expr>& x) {
  return make_store(cp.cr.name, flat_index(cp.r, x), load(cp.cr.source, x, cp.t, pl.env, {}));
}

// The block's threads copy the region into shared memory, one unit per thread at a time;
// a barrier before (in a serial loop, where the previous iteration still reads the copy)
// and after.
void KernelBuilder::place_shared_copy(Placement& pl, const StagedCopy& cp, int64_t lanes) {
  const CacheRead& cr = cp.cr;
  std::vector<Stmt>& pre = pl.pre;
  const Realization& r = cp.r;
  const int64_t units = cp.total / lanes, min_threads = pl.min_threads;
  const bool in_serial = pl.in_serial, wgmma = pl.wgmma;
  auto to_shared = [&](const std::vector<Expr>& x, const Expr&) { return shared_store(pl, cp, x); };
  const std::string cv = cr.name + "_c" + std::to_string(uid_++);
  Stmt loopst = over_block_threads(cv, units, copy_loop_kind(units, min_threads), [&](const Expr& e) {
    std::vector<Expr> a = cp.src_index(e, lanes);
    return cp.zero_outside(cp.whole_tiles, cp.in_source(a), unit_copy(cp, lanes, a, to_shared), r, a, lanes);
  });
  if (in_serial) pre.push_back(make_barrier());
  pre.push_back(loopst);
  if (wgmma) pre.push_back(make_async_proxy_fence());
  pre.push_back(make_barrier());
}

// cache_read scope register: each thread copies the whole region into its own registers.
void KernelBuilder::place_register_copy(Placement& pl, const StagedCopy& cp) {
  const CacheRead& cr = cp.cr;
  const DType t = cp.t;
  const Env& env = pl.env;
  std::vector<Stmt>& pre = pl.pre;
  const Realization& r = cp.r;
  const int64_t total = cp.total;
  std::string cv = cr.name + "_r" + std::to_string(uid_++);
  Expr e = make_var(cv);
  std::vector<Expr> a = cp.src_index(e);
  Stmt st = cp.zero_outside(false, cp.in_source(a),
                            make_store(cr.name, flat_index(r, a), load(cr.source, a, t, env, {})), r, a, 1);
  pre.push_back(make_for(cv, make_int(0), make_int(total), total <= 64 ? LoopKind::Unrolled : LoopKind::Serial,
                         GpuAxis::None, st));
}

}  // namespace cusched::lowering
