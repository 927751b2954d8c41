// Rules on what is placed at a stage's loop: producers computed there (compute_at) and
// copies staged there in shared memory (cache_read), which must not be made once per
// thread of a thread loop.
#include <algorithm>

#include "dsl/expr_substitute.h"
#include "dsl/legality/legality_rules.h"
#include "dsl/padded_load.h"

namespace cusched::legality {
namespace {

void check_producer(const Rules& r, const std::string& name, const StageSchedule& ps) {
  const std::string& host = ps.at_stage;
  const StageProvenance& pv = ps.provenance;
  const std::vector<std::string> hosts = r.st.consumers_of(name);
  if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) {
    // The host read the producer through a stage that is no longer inlined: the step that
    // changed that stage's location (or placed the producer, if later) caused it.
    int step = pv.location;
    for (const auto& reader : r.st.stages)
      if (loads_from(reader->body, name)) step = latest({step, r.st.schedules.at(reader->name).provenance.location});
    r.refuse(step, "producer-host-does-not-read",
             "Stage '" + name + "' is computed at a loop of '" + host + "', which no longer reads it (the stage " +
                 "it read '" + name + "' through is not inlined).",
             "Inline the stage between them again, or compute '" + name + "' at a loop of a stage that reads it" +
                 (hosts.empty() ? std::string(".") : ", such as '" + hosts[0] + "'."));
  }
  for (const auto& n : ps.order)
    if (is_block_axis(ps.loops.at(n).axis))
      r.refuse(latest({pv.location, pv.binding_of(n)}), "producer-binds-block",
               "Stage '" + name + "' is computed inside '" + host + "' but binds loop '" + n + "' to a block axis.",
               "Bind the producer's loops to thread axes only, or compute it at root.");
  for (const auto& n : ps.order)
    if (ps.loops.at(n).axis == GpuAxis::ClusterX && n != ps.cross_cluster_loop)
      r.refuse(latest({pv.location, pv.binding_of(n)}), "producer-binds-cluster",
               "Stage '" + name + "' is computed inside '" + host + "' but binds its pure loop '" + n +
                   "' to cluster.x, so each block of the cluster would hold only part of it.",
               "Inside another stage, use cluster.x only for a reduction loop combined with cross_thread_reduce kind "
               "\"cluster\".");
  for (const auto& reader : r.st.stages)
    if (reads_padded(reader->body, name))
      r.refuse(pv.location, "padded-read-of-placed-stage",
               "Stage '" + name + "' is computed at a loop of '" + host + "', but stage '" + reader->name +
                   "' reads it through padded(...), whose indices may leave its domain, where a stage computed at a "
                   "loop holds no values.",
               "Compute '" + name + "' at root or inline it.");
  const std::optional<int> in_thread = r.inside_thread_loop(host, r.st.schedules.at(host).position(ps.at_loop));
  if (!in_thread) return;
  for (const auto& n : ps.order)
    if (is_thread_axis(ps.loops.at(n).axis))
      r.refuse(latest({pv.location, pv.binding_of(n), *in_thread}), "thread-loop-in-register-producer",
               "Stage '" + name + "' is computed per thread (inside a thread loop of '" + host + "') but binds loop '" +
                   n + "' to a thread axis.",
               "Leave its loops serial, or compute it at a block-level loop so that the block's threads share it.");
}

}  // namespace

void check_placement_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    if (!r.built(f->name)) continue;
    for (const auto& cr : s.cache_reads) {
      const int p = s.position(cr.at_loop);
      if (p < 0) continue;
      const bool pipelined = s.pipeline_loop == cr.at_loop && s.pipeline_depth > 0;
      if (cr.share && pipelined)
        r.refuse(
            latest({s.provenance.cache_read_of(cr.source), s.provenance.pipeline}), "cache-read-share-pipelined",
            "cache_read of '" + cr.source + "' is shared with the producers at loop '" + cr.at_loop +
                "', which is software-pipelined, so the copy of one iteration is not ready before the producers run.",
            "Share a copy made at a loop that is not pipelined, or drop share.");
      if (cr.scope != MemScope::Shared) continue;
      if (const std::optional<int> in_thread = r.inside_thread_loop(f->name, p))
        r.refuse(latest({s.provenance.cache_read_of(cr.source), *in_thread}), "shared-copy-in-thread-loop",
                 "cache_read of '" + cr.source + "' into shared memory is made at loop '" + cr.at_loop +
                     "', which is inside a thread loop, so each thread would overwrite the block's copy.",
                 "Make the copy at a loop outside the stage's threadIdx loops, or use scope register.");
    }
  }
  for (const auto& f : r.st.stages) {
    const StageSchedule& ps = r.st.schedules.at(f->name);
    if (ps.location != ComputeLocation::At || r.st.is_output(f->name) || !r.built(f->name)) continue;
    check_producer(r, f->name, ps);
  }
}

}  // namespace cusched::legality
