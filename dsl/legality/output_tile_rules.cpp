// Rules on a shared-memory output tile (cache_write scope shared): the stage has its
// own kernel, block loops to tile and a reduction finished inside the block.
#include "dsl/legality/legality_rules.h"

namespace cusched::legality {

void check_output_tile_rules(const Rules& r) {
  for (const auto& f : r.st.stages) {
    const StageSchedule& s = r.st.schedules.at(f->name);
    const StageProvenance& pv = s.provenance;
    if (s.cache_write_scope != MemScope::Shared || !f->is_reduction() || !r.built(f->name)) continue;
    const std::string& stage = f->name;
    if (s.location != ComputeLocation::Root)
      r.refuse(latest({pv.cache_write, pv.location}), "cache-write-shared-not-root",
               "Stage '" + stage +
                   "' asks for a shared-memory output tile (cache_write scope shared), but it is computed inside "
                   "another stage, so its result already stays on chip.",
               "Drop cache_write for it, or compute it at root.");
    if (s.order.empty() || !is_block_axis(s.loops.at(s.order[0]).axis))
      r.refuse(latest({pv.cache_write, pv.order, s.order.empty() ? -1 : pv.binding_of(s.order[0])}),
               "cache-write-shared-no-block-loops",
               "Stage '" + stage +
                   "' asks for a shared-memory output tile (cache_write scope shared), but none of its loops is "
                   "bound to a block axis, so there is no block tile to stage.",
               "Bind the stage's outer loops to blockIdx axes (for example with tile and bind), or use cache_write "
               "scope register.");
    if (!s.cross_cluster_loop.empty())
      r.refuse(
          latest({pv.cache_write, pv.cross_thread}), "cache-write-shared-reduction-across-blocks",
          "Stage '" + stage + "' asks for a shared-memory output tile, but its reduction loop '" +
              s.cross_cluster_loop +
              "' is spread over the blocks of a cluster, so no block tile holds finished results before the combine.",
          "Keep reduction loops inside the block (split K across blocks with rfactor instead), or use cache_write "
          "scope register.");
  }
}

}  // namespace cusched::legality
