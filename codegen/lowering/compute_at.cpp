// compute_at: the stages computed at a loop of another stage, and the rule that a copy
// shared with them (cache_read share) holds every element they read.
#include "codegen/linear_form.h"
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// The producers computed at loop p (compute_at): each over the region that the rest of
// the stage reads while the loops inside p run, in shared memory (or, inside a thread
// loop, in each thread's registers), reading the copies shared with them (cache_read
// share) instead of their sources.
void KernelBuilder::place_producers(Placement& pl, const Env& shared_caches) {
  const Ctx& c = pl.c;
  const int p = pl.p;
  const std::string& loop = pl.loop;
  const bool in_thread = pl.in_thread, in_serial = pl.in_serial;
  const auto& sweep = pl.sweep;
  const auto& copy_regions = pl.copy_regions;
  Env& env = pl.env;
  std::vector<Stmt>& pre = pl.pre;
  std::vector<Allocation>& allocs = pl.allocs;
  std::set<std::string> used_share;
  for (const auto& pd : st_.stages) {
    const StageSchedule& ps = st_.schedules.at(pd->name);
    if (ps.location != ComputeLocation::At || ps.at_stage != c.f.name || ps.at_loop != loop) continue;
    std::vector<int64_t> full = eval_shape(pd->extents, st_.ctx.sizes);
    std::vector<Expr> mn;
    std::vector<int64_t> ex;
    region_of(c.body, pd->name, {}, sweep, full, mn, ex);
    MemScope scope = in_thread ? MemScope::Register : MemScope::Shared;
    Realization r = dense(pd->name, scope, mn, ex);
    Env penv = env;
    for (const auto& [source, copy] : shared_caches) {
      if (check_shared_copy_reads(c, p, *pd, r, source, copy_regions.at(source), copy.scope)) used_share.insert(source);
    }
    Stmt compute = build_stage(*pd, r, penv, in_thread, in_serial, shared_caches);
    if (scope == MemScope::Shared) {
      bool threaded = false;
      for (const auto& n : ps.order) threaded |= is_thread_axis(ps.loops.at(n).axis);
      // A producer with no thread loops is computed by one thread of the block.
      if (!threaded && !contains_collective(compute)) compute = make_if(make_var("tid") == make_int(0), compute);
      if (in_serial) pre.push_back(make_barrier());
      pre.push_back(compute);
      pre.push_back(make_barrier());
    } else {
      pre.push_back(compute);
    }
    env[pd->name] = r;
    allocs.push_back({pd->dtype, r});
  }
  for (const auto& [source, copy] : shared_caches)
    if (!used_share.count(source))
      fail("cache-read-share-unused",
           "cache_read of '" + source + "' in stage '" + c.f.name + "' is shared at loop '" + loop +
               "', but no stage computed there reads '" + source + "'.",
           "Compute the stages that read it at that loop (compute_at), or drop share.");
}

// Whether producer `pd`, computed at loop p of c's stage over `region`, reads `source`;
// fails unless every element it reads lies in the copy that c makes there and shares
// (cache_read share). The producer's loops bound to block axes, the cluster and (for
// a register copy) threads name the same hardware index as c's loops bound to the same
// axis at or outside p, and stand for them; its other loops sweep.
bool KernelBuilder::check_shared_copy_reads(const Ctx& c, int p, const FuncDef& pd, const Realization& region,
                                            const std::string& source, const CopyRegion& copy, MemScope scope) {
  StageNest sn = stage_nest(pd, region);
  if (!loads_from(sn.body, source)) return false;
  const std::string where = "cache_read of '" + source + "' in stage '" + c.f.name + "' is shared at loop '" +
                            c.nest.loops[p].info.name + "'";
  const std::string hint = "Split and bind the producer's loops over '" + source +
                           "' as the stage does (the same parts on the same axes), or drop share.";
  std::map<std::string, Expr> same_index;
  std::map<std::string, int64_t> sweep;
  for (const auto& l : sn.nest.loops) {
    const GpuAxis a = l.info.axis;
    const bool fixed = is_block_axis(a) || a == GpuAxis::ClusterX || (scope == MemScope::Register && is_thread_axis(a));
    if (!fixed) {
      sweep[l.var] = l.info.extent;
      continue;
    }
    const DerivedLoop* match = nullptr;
    for (int q = 0; q <= p; ++q)
      if (c.nest.loops[q].info.axis == a) match = &c.nest.loops[q];
    if (!match)
      fail("cache-read-share-region",
           where + ", but stage '" + pd.name + "' binds loop '" + l.info.name + "' to " + gpu_axis_name(a) +
               ", which no loop of '" + c.f.name +
               "' around the copy binds, so its reads cannot be placed in the copy.",
           hint);
    same_index[l.var] = make_var(match->var);
  }
  const auto& [mn, ex, full] = copy;
  std::vector<Expr> pmn;
  std::vector<int64_t> pex;
  region_of(substitute(sn.body, same_index), source, {}, sweep, full, pmn, pex);
  for (size_t d = 0; d < ex.size(); ++d) {
    auto diff = linear_form(pmn[d] - mn[d]);
    bool constant = diff.has_value();
    if (diff)
      for (const auto& [v, k] : diff->coeff) constant &= k == 0;
    if (!constant || diff->constant < 0 || diff->constant + pex[d] > ex[d])
      fail("cache-read-share-region",
           where + ", but stage '" + pd.name + "' reads elements of dimension " + std::to_string(d) +
               " outside the copied region (" + std::to_string(ex[d]) +
               " elements from the stage's own reads; the producer reads " + std::to_string(pex[d]) +
               (constant ? " starting " + std::to_string(diff->constant) + " elements in" : " at a different place") +
               ").",
           hint);
  }
  return true;
}

}  // namespace cusched::lowering
