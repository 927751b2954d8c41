// cache_read: the region of its source that a copy made at a loop holds, its
// realization (pad, swizzle), and the choice among the copy strategies: bulk_copy.cpp,
// async_copy.cpp, register_tail.cpp, shared_copy.cpp.
#include "codegen/expr_loads.h"
#include "codegen/linear_form.h"
#include "codegen/lowering/kernel_builder.h"
#include "codegen/passes/affine.h"
#include "dsl/error.h"
#include "dsl/padded_load.h"

namespace cusched::lowering {

LoopKind copy_loop_kind(int64_t units, int64_t min_threads) {
  return (units + min_threads - 1) / min_threads <= 16 ? LoopKind::Unrolled : LoopKind::Serial;
}

Expr buffer_of(const Expr& it, int64_t depth) {
  int64_t k = 0;
  return is_const_int(it, &k) ? make_int(k % depth) : it % make_int(depth);
}

Stmt over_block_threads(const std::string& v, int64_t units, LoopKind kind,
                        const std::function<Stmt(const Expr&)>& body) {
  const Expr nt = make_var(kNumThreads), e = make_var(v) * nt + make_var("tid");
  return make_for(v, make_int(0), (make_int(units) + nt - make_int(1)) / nt, kind, GpuAxis::None,
                  guarded({e < make_int(units)}, body(e)));
}

std::vector<Expr> StagedCopy::src_index(const Expr& e, int64_t lanes) const {
  std::vector<Expr> args;
  const size_t first = lanes > 1 && ex.back() % lanes != 0 ? run_first : ex.size() - 1;
  int64_t run = 1;
  for (size_t d = first; d < ex.size(); ++d) run *= ex[d];
  int64_t inner = total / lanes;
  for (size_t d = 0; d < first; ++d) {
    inner /= ex[d];
    Expr coord = ex[d] == 1 ? make_int(0) : inner == 1 ? e : e / make_int(inner);
    if (d > 0 && ex[d] > 1) coord = coord % make_int(ex[d]);
    args.push_back(mn[d] + coord);
  }
  // The run: its unit u starts at element u * lanes, of which each dimension of the run
  // takes its coordinate (a one-dimension run: the unit's index times lanes).
  const int64_t units = run / lanes;
  Expr unit = units == 1 ? make_int(0) : first == 0 ? e : e % make_int(units);
  const Expr element = lanes > 1 && units > 1 ? unit * make_int(lanes) : unit;
  int64_t below = run;
  for (size_t d = first; d < ex.size(); ++d) {
    below /= ex[d];
    Expr coord = ex[d] == 1 ? make_int(0) : below == 1 ? element : element / make_int(below);
    if (d > first && ex[d] > 1) coord = coord % make_int(ex[d]);
    args.push_back(mn[d] + coord);
  }
  return args;
}

std::vector<Expr> StagedCopy::in_source(const std::vector<Expr>& a) const {
  std::vector<Expr> conds;
  for (size_t d = 0; d < a.size(); ++d) {
    if (inside[d]) continue;
    if (padded || may_start_below[d]) conds.push_back(a[d] >= make_int(0));
    conds.push_back(a[d] < make_int(full[d]));
  }
  return conds;
}

Stmt StagedCopy::zero_outside(bool zero_tails, const std::vector<Expr>& conds, Stmt copy, const Realization& dst,
                              const std::vector<Expr>& a, int64_t lanes) const {
  if ((!zero_tails && !padded) || conds.empty()) return guarded(conds, copy);
  std::vector<Stmt> zeros;
  for (int64_t k = 0; k < lanes; ++k) {
    std::vector<Expr> e = a;
    e.back() = e.back() + make_int(k);
    zeros.push_back(make_store(cr.name, flat_index(dst, e), padded ? outside : make_float(0.0)));
  }
  return make_if(conjunction(conds), copy, make_block(zeros));
}

StagedCopy KernelBuilder::staged_copy(Placement& pl, const CacheRead& cr) {
  const Ctx& c = pl.c;
  const int p = pl.p;
  const bool wgmma = pl.wgmma;
  const auto& sweep = pl.sweep;
  auto& copy_regions = pl.copy_regions;
  StagedCopy cp(cr);
  std::vector<int64_t>& full = cp.full;
  DType& t = cp.t;
  full = source_shape(cr.source);
  const TensorDef* in = st_.ctx.pipeline.find_input(cr.source);
  t = in ? in->dtype : def(cr.source).dtype;
  for (const ExprNode* l : loads_in(c.body))
    if (l->name == cr.source && is_padded_load(*l)) {
      cp.padded = true;
      cp.outside = padding_value(*l);
    }
  std::vector<Expr>& mn = cp.mn;
  std::vector<int64_t>& ex = cp.ex;
  // A tensor-core stage's tensor cores read whole tiles from its copies: tails included
  // (zeroed). An mma.sync stage's copies by the bulk engine clip their rows to the source.
  const bool thread_copy = cr.scope == MemScope::Shared && pl.engine == CopyEngine::CpAsync;
  cp.whole_tiles = wgmma || (!c.s.tensor_core_shape.empty() && thread_copy);
  bool spans = false;
  region_of(c.body, cr.source, {}, sweep, full, mn, ex, cp.whole_tiles, &spans);
  copy_regions[cr.source] = {mn, ex, full};
  MemScope& scope = cp.scope;
  Realization& r = cp.r;
  scope = cr.scope;
  r = dense(cr.name, scope, mn, ex, cr.swizzle ? 0 : cr.pad, cr.innermost);
  r.spans_loop_tails = spans && cp.whole_tiles && thread_copy;
  if (cr.swizzle && scope == MemScope::Shared) swizzle_rows_of(r, dtype_bytes(t), cr.source);
  int64_t& total = cp.total;
  for (auto e : ex) total *= e;
  // Dimensions in which the region stays inside the source for every iteration of
  // the loops around the copy (its min swept over their extents).
  std::vector<bool>& inside = cp.inside;
  inside.assign(ex.size(), false);
  cp.may_start_below.assign(ex.size(), false);
  for (size_t d = 0; d < ex.size(); ++d) {
    std::map<std::string, int64_t> around;
    for (int q = 0; q <= p; ++q) around[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
    auto range = index_range(mn[d], around);
    bool fixed = range.has_value();
    bool nonnegative = range.has_value() && range->min_form.constant >= 0;
    if (range)
      for (const auto& [v, k] : range->min_form.coeff) {
        fixed &= k == 0;
        nonnegative &= k >= 0;
      }
    cp.may_start_below[d] = !nonnegative;
    int64_t first = -1;
    inside[d] =
        (ex[d] == full[d] && !cp.padded && is_const_int(mn[d], &first) && first == 0) ||
        (fixed && range->min_form.constant >= 0 && range->min_form.constant + range->extent - 1 + ex[d] <= full[d]);
  }
  cp.transposed = cr.transposes(ex.size());
  cp.pitch = ex.back() + (cr.swizzle ? 0 : cr.pad);
  // Chunks of 4 elements over the innermost dimensions merged, where the innermost extent
  // holds none: the dimensions inside the run span their whole source (so the source is
  // contiguous across them), the copy has no padding or swizzle, and no dimension of the
  // run needs a bounds check (a chunk may cross its rows).
  cp.run_first = ex.size() - 1;
  if (ex.back() % 4 != 0 && cp.pitch == ex.back() && !cr.swizzle && !cp.padded && !cp.transposed) {
    size_t j = ex.size() - 1;
    int64_t run = ex[j];
    while (run % 4 != 0 && j > 0 && ex[j] == full[j] && inside[j]) run *= ex[--j];
    if (run % 4 == 0 && inside[j]) cp.run_first = j;
  }
  return cp;
}

// 16 bytes (4 elements) per copy where every chunk of 4 innermost elements (of the
// merged run, where the innermost extent holds no whole chunk) starts 16-byte aligned in
// both buffers and lies wholly inside or wholly outside the source.
bool KernelBuilder::copies_16_bytes(const Placement& pl, const StagedCopy& cp, const Realization& dst) {
  const CacheRead& cr = cp.cr;
  const std::vector<int64_t>& full = cp.full;
  const DType t = cp.t;
  const std::vector<Expr>& mn = cp.mn;
  const std::vector<int64_t>& ex = cp.ex;
  const MemScope scope = cp.scope;
  const int64_t pitch = cp.pitch;
  const Env& env = pl.env;
  if (scope != MemScope::Shared || dtype_bytes(t) != 4 || cp.transposed) return false;
  const size_t last = ex.size() - 1;
  const bool merged = ex.back() % 4 != 0;
  if (merged) {
    if (cp.run_first == last) return false;
    // The merged run: both buffers step by one element along its last dimension and by
    // the run's inner extents along the others.
    std::vector<Expr> probe;
    for (size_t d = 0; d < ex.size(); ++d) probe.push_back(make_var(cr.name + "_probe" + std::to_string(d)));
    auto src_form = linear_form(load(cr.source, probe, t, env, {})->args[0], true);
    auto dst_form = linear_form(flat_index(dst, probe), true);
    if (!src_form || !dst_form) return false;
    int64_t stride = 1;
    for (size_t d = last + 1; d-- > cp.run_first;) {
      const std::string v = cr.name + "_probe" + std::to_string(d);
      if (src_form->coeff[v] != stride || dst_form->coeff[v] != stride) return false;
      stride *= ex[d];
    }
  } else if (pitch % 4 != 0 || full.back() % 4 != 0 || !provably_multiple_of(mn.back(), 4)) {
    return false;
  }
  // Each chunk starts 16-byte aligned in both buffers (a merged run: where the run starts,
  // its chunks being 4 elements apart from there).
  std::vector<Expr> a = cp.src_index(make_var(cr.name + "_chunk"), 4);
  if (merged)
    for (size_t d = cp.run_first; d < ex.size(); ++d) a[d] = mn[d];
  return provably_multiple_of(load(cr.source, a, t, env, {})->args[0], 4) &&
         provably_multiple_of(flat_index(dst, a), 4);
}

// A pipelined copy's storage holds `depth` buffers; iteration v reads buffer v % depth.
void KernelBuilder::keep_pipeline_buffers(Placement& pl, const std::string& source, DType t, Realization& r,
                                          int64_t buffer_size) {
  r.offset = buffer_of(make_var(pl.here.var), pl.depth) * make_int(buffer_size);
  Realization storage = r;
  storage.size = buffer_size * pl.depth;
  pl.caches[source] = r;
  pl.pipeline_buffers.push_back({t, storage});
}

// The copy strategy: on the bulk engine (pipeline engine bulk), the tensor memory
// accelerator (pipeline engine tensor), with cp.async (pipeline),
// synchronously with a register tail (registers), synchronously into shared memory, or
// into each thread's registers (scope register).
void KernelBuilder::place_copy(Placement& pl, const CacheRead& cr) {
  StagedCopy cp = staged_copy(pl, cr);
  const int64_t depth = pl.depth, min_threads = pl.min_threads;
  const MemScope scope = cp.scope;
  if (scope == MemScope::Shared && pl.engine == CopyEngine::Bulk) return place_bulk_copy(pl, cp);
  if (scope == MemScope::Shared && pl.engine == CopyEngine::Tensor) return place_tensor_copy(pl, cp);
  if (scope == MemScope::Shared && depth > 0) return place_async_copy(pl, cp);
  // A synchronous copy's unit: 4 elements where 16-byte copies are provably aligned.
  const int64_t lanes = scope == MemScope::Shared && copies_16_bytes(pl, cp, cp.r) ? 4 : 1, units = cp.total / lanes;
  // A register tail where the copy divides evenly over the threads: step v of each
  // thread copies unit v * threads + tid, and the last steps (all but one at most) go
  // to the thread's register array, unrolled so that each register element is named by
  // a constant. Elsewhere (a copy of another size, or of a padded source) the copy stays
  // wholly shared.
  if (scope == MemScope::Shared && cr.registers > 0 && !cp.padded && units % min_threads == 0 &&
      units / min_threads > 1)
    return place_register_tail(pl, cp, lanes);
  if (scope == MemScope::Shared)
    place_shared_copy(pl, cp, lanes);
  else
    place_register_copy(pl, cp);
  pl.caches[cr.source] = cp.r;
  pl.allocs.push_back({cp.t, cp.r});
}

}  // namespace cusched::lowering
