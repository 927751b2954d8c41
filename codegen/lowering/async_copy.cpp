// pipeline engine "cp.async": a software-pipelined cache_read whose copies for
// iteration v + lead are issued asynchronously (cp.async, 4 or 16 bytes per thread) at
// the top of iteration v and waited for by groups, `depth` buffers in shared memory.
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// The copy of the region for iteration `it` into buffer it % depth, lead + 1 of them:
// the first `lead` before the loop, the last in the loop for iteration v + lead.
void KernelBuilder::place_async_copy(Placement& pl, StagedCopy& cp) {
  const CacheRead& cr = cp.cr;
  const DType t = cp.t;
  const int64_t total = cp.total;
  const Env& env = pl.env;
  Realization& r = cp.r;
  const DerivedLoop& here = pl.here;
  const int64_t depth = pl.depth;
  std::vector<std::vector<Stmt>>& async_copies = pl.async_copies;
  const int64_t lead = pl.lead, min_threads = pl.min_threads;
  const int64_t S = r.size;
  Realization at0 = r;
  at0.offset = make_var(here.var) * make_int(S);
  const int64_t lanes = copies_16_bytes(pl, cp, at0) ? 4 : 1, units = total / lanes;
  // The copy of the region for iteration `it` into buffer it % depth, one unit
  // (4 or 16 bytes) per thread at a time.
  auto issue = [&](const Expr& it) {
    return over_block_threads(
        cr.name + "_a" + std::to_string(uid_++), units, copy_loop_kind(units, min_threads), [&](const Expr& e) {
          std::vector<Expr> a = cp.src_index(e, lanes);
          for (auto& x : a) x = substitute(x, {{here.var, it}});
          Realization at = r;
          for (auto& m : at.min) m = substitute(m, {{here.var, it}});
          at.offset = buffer_of(it, depth) * make_int(S);
          Stmt st = make_async_copy(cr.name, flat_index(at, a), load(cr.source, a, t, env, {}), lanes * dtype_bytes(t));
          return cp.zero_outside(cp.whole_tiles, cp.in_source(a), st, at, a, lanes);
        });
  };
  for (int64_t s = 0; s <= lead; ++s)
    async_copies[s].push_back(issue(s < lead ? make_int(s) : make_var(here.var) + make_int(lead)));
  keep_pipeline_buffers(pl, cr.source, t, r, S);
}

// The cp.async pipeline's first copies before the loop, one group per iteration, and in
// the loop the issue of iteration v + lead and the wait for iteration v.
void KernelBuilder::issue_async_pipeline(Placement& pl) {
  const DerivedLoop& here = pl.here;
  const int64_t depth = pl.depth;
  std::vector<std::vector<Stmt>>& async_copies = pl.async_copies;
  const int64_t lead = pl.lead;
  const bool wgmma = pl.wgmma;
  std::vector<Allocation>& pipeline_buffers = pl.pipeline_buffers;
  std::vector<Stmt>& pre = pl.pre;
  bool& end_barrier = pl.end_barrier;
  // Before the loop: the copies of iterations 0 .. lead-1, one group each.
  std::vector<Stmt> first;
  for (int64_t s = 0; s < lead; ++s) {
    if (s < here.info.extent) first.push_back(make_block(async_copies[s]));
    first.push_back(make_async_commit());  // one group per iteration, empty past the loop's end
  }
  prologue_[here.var] = {make_block(first), pipeline_buffers};
  Stmt issue =
      make_if(make_var(here.var) + make_int(lead) < make_int(here.info.extent), make_block(async_copies[lead]));
  if (lead < depth - 1) {
    // A k-step of wgmma in flight: wait for iteration v's group and share it
    // (ordered before the tensor cores' reads), then refill the buffer of iteration
    // v - 2. Every thread passed this barrier only after finishing iteration v - 1,
    // whose last wait retired the instructions of v - 2: one barrier per iteration.
    pre.push_back(make_async_wait(lead - 1));
    pre.push_back(make_async_proxy_fence());
    pre.push_back(make_barrier());
    pre.push_back(issue);
    pre.push_back(make_async_commit());
  } else {
    // In the loop: issue iteration v + lead, wait for iteration v's group, share it
    // (in a wgmma stage, ordered before the tensor cores' reads of shared memory).
    pre.push_back(issue);
    pre.push_back(make_async_commit());
    pre.push_back(make_async_wait(lead));
    if (wgmma) pre.push_back(make_async_proxy_fence());
    pre.push_back(make_barrier());
    end_barrier = true;  // every thread is done with this iteration's buffer before it is refilled
  }
}

}  // namespace cusched::lowering
