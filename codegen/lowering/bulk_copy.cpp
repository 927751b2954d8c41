// pipeline engine "bulk": a software-pipelined cache_read on the Hopper bulk copy
// engine (cp.async.bulk), whole rows issued by one thread and tracked by one mbarrier
// per buffer of the pipeline.
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// The copy of the region for each iteration, on the bulk engine: one bulk copy per row
// of the region that lies in the source, issued by one thread, the bytes of each
// iteration's copies counted on the mbarrier of its buffer.
void KernelBuilder::place_bulk_copy(Placement& pl, StagedCopy& cp) {
  const CacheRead& cr = cp.cr;
  const std::string& loop = pl.loop;
  const DType t = cp.t;
  const std::vector<int64_t>& full = cp.full;
  const std::vector<int64_t>& ex = cp.ex;
  const std::vector<bool>& inside = cp.inside;
  const int64_t total = cp.total, pitch = cp.pitch;
  const Env& env = pl.env;
  Realization& r = cp.r;
  const DerivedLoop& here = pl.here;
  const int64_t depth = pl.depth;
  std::vector<std::vector<Stmt>>& async_copies = pl.async_copies;
  const std::string& bar = pl.bar;
  std::vector<Expr>& bulk_bytes = pl.bulk_bytes;
  const int64_t S = r.size, esize = dtype_bytes(t), rows = total / ex.back();
  Realization at0 = r;
  at0.offset = make_var(here.var) * make_int(S);
  std::vector<Expr> row0 = cp.src_index(make_var(cr.name + "_row"), ex.back());
  Expr src0 = load(cr.source, row0, t, env, {});
  const BufferSpec* g = globals_.count(src0->name) ? &globals_.at(src0->name) : nullptr;
  if (!g || (env.count(cr.source) && env.at(cr.source).scope != MemScope::Global))
    fail("bulk-copy-source",
         "cache_read of '" + cr.source + "' is pipelined on the bulk copy engine at loop '" + loop +
             "', but its source is not in global memory here.",
         "Bulk-copy global tensors only: compute the source at root, or use the pipeline's cp.async engine.");
  if (16 % esize != 0 || (ex.back() * esize) % 16 != 0 || (pitch * esize) % 16 != 0 ||
      (full.back() * esize) % 16 != 0 || !provably_multiple_of(src0->args[0], 16 / esize) ||
      !provably_multiple_of(flat_index(at0, row0), 16 / esize))
    fail("bulk-copy-alignment",
         "cache_read of '" + cr.source + "' is pipelined on the bulk copy engine at loop '" + loop +
             "', but its rows of " + std::to_string(ex.back() * esize) + " bytes (shared row pitch " +
             std::to_string(pitch * esize) + " bytes, source rows of " + std::to_string(full.back() * esize) +
             " bytes) are not all multiples of 16 bytes starting at 16-byte aligned addresses.",
         "Pad the staged rows to a multiple of 16 bytes (4 floats: cache_read pad), tile so that each copied row "
         "starts at a multiple of 4 floats, or use the pipeline's cp.async engine.");
  // The copy of the region for iteration `it` into buffer it % depth: one bulk copy
  // per row of the region that lies in the source, of the row's bytes in the source.
  auto issue = [&](const Expr& it) {
    std::string rv = cr.name + "_row" + std::to_string(uid_++);
    std::vector<Expr> a = cp.src_index(make_var(rv), ex.back());
    for (auto& x : a) x = substitute(x, {{here.var, it}});
    Realization at = r;
    for (auto& m : at.min) m = substitute(m, {{here.var, it}});
    at.offset = buffer_of(it, depth) * make_int(S);
    Expr row_bytes = inside.back() ? make_int(ex.back() * esize)
                                   : min(make_int(ex.back()), make_int(full.back()) - a.back()) * make_int(esize);
    Stmt copy = make_bulk_copy(cr.name, flat_index(at, a), load(cr.source, a, t, env, {}), row_bytes, bar,
                               buffer_of(it, depth));
    Expr bytes = make_int(esize);
    for (size_t d = 0; d < ex.size(); ++d)
      bytes =
          bytes * (inside[d] ? make_int(ex[d]) : min(make_int(ex[d]), max(make_int(full[d]) - at.min[d], make_int(0))));
    return std::pair{
        make_for(rv, make_int(0), make_int(rows), LoopKind::Serial, GpuAxis::None, guarded(cp.in_source(a), copy)),
        bytes};
  };
  const int64_t lead = pl.lead;
  for (int64_t s = 0; s <= lead; ++s) {
    auto [copies, bytes] = issue(s < lead ? make_int(s) : make_var(here.var) + make_int(lead));
    async_copies[s].push_back(copies);
    bulk_bytes[s] = bulk_bytes[s].defined() ? bulk_bytes[s] + bytes : bytes;
  }
  keep_pipeline_buffers(pl, cr.source, t, r, S);
}

// The bulk or tensor pipeline's mbarriers and its first copies before the loop, and in
// the loop the issue of iteration v + lead and the wait for iteration v.
void KernelBuilder::issue_bulk_pipeline(Placement& pl) {
  const DerivedLoop& here = pl.here;
  const int64_t depth = pl.depth, lead = pl.lead;
  std::vector<std::vector<Stmt>>& async_copies = pl.async_copies;
  const std::string& bar = pl.bar;
  const std::vector<Expr>& bulk_bytes = pl.bulk_bytes;
  std::vector<Allocation>& pipeline_buffers = pl.pipeline_buffers;
  std::vector<Stmt>& pre = pl.pre;
  bool& end_barrier = pl.end_barrier;
  // Before the loop: one thread initialises the mbarriers (one arrival per phase:
  // the issuing thread's), a barrier publishes them, and the copies of iterations
  // 0 .. lead-1 are issued, each announced on its buffer's mbarrier first.
  const Expr issuer = make_var("tid") == make_int(0);
  auto announced = [&](int64_t s, const Expr& it) {
    std::vector<Stmt> b = {make_mbarrier_expect(bar, buffer_of(it, depth), bulk_bytes[s])};
    b.insert(b.end(), async_copies[s].begin(), async_copies[s].end());
    return make_block(b);
  };
  const std::string bv = bar + "_init";
  std::vector<Stmt> first = {make_if(issuer, make_for(bv, make_int(0), make_int(depth), LoopKind::Unrolled,
                                                      GpuAxis::None, make_mbarrier_init(bar, make_var(bv), 1))),
                             make_barrier()};
  for (int64_t s = 0; s < lead && s < here.info.extent; ++s)
    first.push_back(make_if(issuer, announced(s, make_int(s))));
  pipeline_buffers.push_back({DType::i64, dense(bar, MemScope::Shared, {make_int(0)}, {depth})});
  prologue_[here.var] = {make_block(first), pipeline_buffers};
  // In the loop: issue iteration v + lead; every thread waits for iteration v's phase
  // of its buffer's mbarrier (the (v / depth)-th, counting from 0).
  const Expr v = make_var(here.var), next = v + make_int(lead);
  pre.push_back(make_if(next < make_int(here.info.extent) && issuer, announced(lead, next)));
  pre.push_back(make_mbarrier_wait(bar, buffer_of(v, depth), (v / make_int(depth)) % make_int(2)));
  // Every thread is done with this iteration's buffer before it is refilled (lead
  // depth - 1), or with the one before, whose wgmma group the next wait retires.
  end_barrier = true;
}

}  // namespace cusched::lowering
