// What is placed at the top of a loop's body: the copies shared with producers
// (cache_read share, staged_copy.cpp), the producers computed there (compute_at,
// compute_at.cpp), the other copies staged there (cache_read), and the issue and wait
// of a software pipeline's copies (pipeline: async_copy.cpp, bulk_copy.cpp); around
// them, the storage of each.
#include "codegen/lowering/kernel_builder.h"
#include "dsl/error.h"

namespace cusched::lowering {

Stmt KernelBuilder::with_placements(Ctx& c, int p, Env env, Env caches, bool in_thread, bool in_serial,
                                    const std::function<Stmt(const Env&, const Env&)>& inner) {
  Placement pl(c, p, std::move(env), std::move(caches), in_thread, in_serial);
  const DerivedLoop& here = pl.here;
  const std::string& loop = pl.loop;
  for (size_t q = p + 1; q < c.nest.loops.size(); ++q) pl.sweep[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
  pl.depth = c.s.pipeline_loop == loop ? c.s.pipeline_depth : 0;
  pl.engine = pl.depth > 0 ? c.s.pipeline_engine : CopyEngine::CpAsync;
  pl.lead = pl.depth - 1 - wgmma_groups_in_flight(c);
  pl.wgmma = uses_wgmma(c);
  pl.bar = here.var + "_bar";
  pl.async_copies.resize(pl.depth);
  pl.bulk_bytes.resize(pl.depth);
  pl.min_threads = threads_at_least(c);
  const int64_t depth = pl.depth;
  // Copies shared with the producers (cache_read share) come first, and the producers
  // read them instead of their sources.
  Env shared_caches;
  for (const auto& cr : c.s.cache_reads) {
    if (cr.at_loop != loop || !cr.share) continue;
    place_copy(pl, cr);
    shared_caches[cr.source] = pl.caches.at(cr.source);
  }
  place_producers(pl, shared_caches);
  for (const auto& cr : c.s.cache_reads)
    if (cr.at_loop == loop && !cr.share) place_copy(pl, cr);
  if (pl.engine != CopyEngine::CpAsync && !pl.async_copies[0].empty())
    issue_bulk_pipeline(pl);
  else if (depth > 0 && !pl.async_copies[0].empty())
    issue_async_pipeline(pl);
  std::vector<Stmt>& pre = pl.pre;
  Stmt rest = inner(pl.env, pl.caches);
  if (pre.empty()) return rest;
  pre.push_back(rest);
  if (pl.end_barrier) pre.push_back(make_barrier());
  Stmt s = make_block(pre);
  for (auto it = pl.allocs.rbegin(); it != pl.allocs.rend(); ++it) s = allocate_realization(it->first, it->second, s);
  return s;
}

}  // namespace cusched::lowering
