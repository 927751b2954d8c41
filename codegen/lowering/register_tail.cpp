// cache_read registers: a synchronous shared copy whose last copy steps of each thread
// stay in that thread's registers. Where the copy divides evenly over the threads, step
// v of each thread copies unit v * threads + tid, and the last steps (all but one at
// most) go to the thread's register array, unrolled so that each register element is
// named by a constant; resolve_register_tails later proves that each read of the tail
// is made by the thread that copied it. A copy of another size stays wholly shared
// (staged_copy.cpp).
#include "codegen/lowering/kernel_builder.h"

namespace cusched::lowering {

void KernelBuilder::place_register_tail(Placement& pl, StagedCopy& cp, int64_t lanes) {
  const CacheRead& cr = cp.cr;
  const DType t = cp.t;
  const Env& env = pl.env;
  std::vector<Stmt>& pre = pl.pre;
  Realization& r = cp.r;
  Env& caches = pl.caches;
  const int64_t units = cp.total / lanes, min_threads = pl.min_threads;
  const bool in_serial = pl.in_serial;
  auto to_shared = [&](const std::vector<Expr>& x, const Expr&) { return shared_store(pl, cp, x); };
  const int64_t threads = min_threads, steps = units / threads;
  const int64_t kept = std::max<int64_t>(1, steps - cr.registers);
  Realization tail = dense(cr.name + "_registers", MemScope::Register, {make_int(0)}, {(steps - kept) * lanes});
  const std::string cv = cr.name + "_c" + std::to_string(uid_++);
  const Expr v = make_var(cv), e = v * make_int(threads) + make_var("tid");
  std::vector<Expr> a = cp.src_index(e, lanes);
  Stmt shared_step = unit_copy(cp, lanes, a, to_shared);
  Stmt to_registers = unit_copy(cp, lanes, a, [&](const std::vector<Expr>& x, const Expr& lane) {
    return make_store(tail.buffer, (v - make_int(kept)) * make_int(lanes) + lane, load(cr.source, x, t, env, {}));
  });
  Stmt body = guarded(cp.in_source(a), make_if(v < make_int(kept), shared_step, to_registers));
  if (in_serial) pre.push_back(make_barrier());
  pre.push_back(make_for(cv, make_int(0), make_int(steps), LoopKind::Unrolled, GpuAxis::None, body));
  pre.push_back(make_barrier());
  r.size = kept * threads * lanes;
  r.tail = RegisterTail{r.buffer, tail.buffer, r.size, threads, lanes};
  register_tails_.push_back(*r.tail);
  caches[cr.source] = r;
  pl.allocs.push_back({t, r});
  pl.allocs.push_back({t, tail});
}

}  // namespace cusched::lowering
