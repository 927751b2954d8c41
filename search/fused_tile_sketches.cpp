#include "search/fused_tile_sketches.h"

#include <set>
#include <string>

#include "dsl/expr_substitute.h"
#include "dsl/step_builder.h"

namespace cusched::search {

namespace {

using nlohmann::json;

// The stages that `name` reads, directly or through pointwise stages that are not outputs:
// those pointwise stages go to `inlined`, the reductions they reach to `producers`.
void reads_through_pointwise(const Pipeline& pl, const std::string& name, std::set<std::string>& producers,
                             std::set<std::string>& inlined) {
  const FuncDef* reader = pl.find_stage(name);
  for (const auto& f : pl.stages()) {
    if (f->name == name || !loads_from(reader->body, f->name)) continue;
    if (f->is_reduction())
      producers.insert(f->name);
    else if (!pl.is_output(f->name) && inlined.insert(f->name).second)
      reads_through_pointwise(pl, f->name, producers, inlined);
  }
}

}  // namespace

void fused_tile_sketches(std::vector<Sketch>& out, const Problem& p) {
  const Pipeline& pl = p.pipeline;
  if (pl.outputs().size() != 1) return;
  const FuncDef* y = pl.find_stage(pl.outputs()[0]);
  // The output's leading variables go to blockIdx.z and blockIdx.y, each on its own: a
  // fused loop would make the producers' region span both.
  if (!y || !y->is_reduction() || y->vars.size() < 2 || y->vars.size() > 4) return;
  std::set<std::string> producer_names, inlined;
  reads_through_pointwise(pl, y->name, producer_names, inlined);
  // In pipeline order: a producer is placed after the ones it reads.
  std::vector<const FuncDef*> producers;
  for (const auto& f : pl.stages())
    if (producer_names.count(f->name)) producers.push_back(f.get());
  if (producers.empty()) return;
  const std::string row = y->vars[y->vars.size() - 2], col = y->vars.back();
  const std::vector<std::string> lead(y->vars.begin(), y->vars.end() - 2);
  std::vector<std::string> rvars;
  for (const auto& r : y->body->rvars) rvars.push_back(r.name);
  for (int64_t tile : {8, 16})
    for (int64_t threads : {128, 256}) {
      json s = json::array();
      for (const auto& name : inlined) s.push_back(schedule_step("compute_inline", name));
      s.push_back(
          schedule_step("split", y->name, {{"loop", row}, {"factor", tile}, {"outer", "ft_ro"}, {"inner", "ft_ri"}}));
      s.push_back(schedule_step("split", y->name,
                                {{"loop", col}, {"factor", threads}, {"outer", "ft_co"}, {"inner", "ft_ct"}}));
      std::vector<std::string> order = lead;
      for (const char* l : {"ft_ro", "ft_ct", "ft_ri", "ft_co"}) order.push_back(l);
      order.insert(order.end(), rvars.begin(), rvars.end());
      s.push_back(schedule_step("reorder", y->name, {{"loops", order}}));
      for (size_t d = 0; d < lead.size(); ++d)
        s.push_back(schedule_step("bind", y->name,
                                  {{"loop", lead[d]}, {"axis", d + 1 == lead.size() ? "blockIdx.y" : "blockIdx.z"}}));
      s.push_back(schedule_step("bind", y->name, {{"loop", "ft_ro"}, {"axis", "blockIdx.x"}}));
      s.push_back(schedule_step("bind", y->name, {{"loop", "ft_ct"}, {"axis", "threadIdx.x"}}));
      std::string names;
      for (const FuncDef* f : producers) {
        s.push_back(schedule_step("compute_at", f->name, {{"consumer", y->name}, {"loop", "ft_ro"}}));
        names += (names.empty() ? "" : " and ") + f->name;
        // The producer's threads: its last pure variable split by the block's threads
        // and moved outermost, or, where that is the row (a row statistic), the row.
        const std::string last = f->vars.back();
        std::vector<std::string> porder;
        if (last == row) {
          porder.push_back(row);
          for (const auto& v : f->vars)
            if (v != row) porder.push_back(v);
        } else {
          s.push_back(schedule_step("split", f->name,
                                    {{"loop", last}, {"factor", threads}, {"outer", "ft_po"}, {"inner", "ft_pt"}}));
          porder.push_back("ft_pt");
          for (const auto& v : f->vars)
            if (v != last) porder.push_back(v);
          porder.push_back("ft_po");
        }
        for (const auto& r : f->body->rvars) porder.push_back(r.name);
        s.push_back(schedule_step("reorder", f->name, {{"loops", porder}}));
        s.push_back(schedule_step("bind", f->name, {{"loop", porder[0]}, {"axis", "threadIdx.x"}}));
      }
      out.push_back({"the pipeline fused into tiles of " + std::to_string(tile) + " rows of " + y->name + ": " + names +
                         " computed per tile in shared memory, " + std::to_string(threads) + " threads",
                     s});
    }
}

}  // namespace cusched::search
