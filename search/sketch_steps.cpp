#include "search/sketch_steps.h"

#include <algorithm>

#include "codegen/expr_loads.h"
#include "dsl/expr_substitute.h"
#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"

namespace cusched::search {

using nlohmann::json;

namespace {

bool is_plain_var(const Expr& e) { return e.defined() && e->op == ExprOp::Var; }

// `sketch` with `stage` folded into its reduction's final store instead of scheduled.
Sketch folded_sketch(const Sketch& sketch, const std::string& stage) {
  return {sketch.idea + ", with " + stage + " folded into its final store (fuse_epilogue): one kernel",
          with_folded_epilogue(sketch.schedule, stage)};
}

}  // namespace

void collect_loads(const Expr& e, std::vector<std::tuple<std::string, bool, bool>>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load) {
    bool plain = std::all_of(e->args.begin(), e->args.end(), is_plain_var);
    out.emplace_back(e->name, plain, e->func != nullptr);
  }
  for (const auto& a : e->args) collect_loads(a, out);
}

std::vector<std::string> reduction_var_names(const FuncDef& f) {
  std::vector<std::string> out;
  if (f.is_reduction())
    for (const auto& r : f.body->rvars) out.push_back(r.name);
  return out;
}

void flat_grid(json& steps, const FuncDef& f, int64_t threads, int64_t vec) {
  steps = concat_steps({steps, flat_grid_steps(f.name, f.vars, threads, vec)});
}

void cross_thread(json& steps, const FuncDef& f, int64_t threads) {
  steps = concat_steps({steps, cross_thread_reduction_steps(f.name, reduction_var_names(f), threads)});
}

void block_per_point(json& steps, const FuncDef& f, int64_t threads) {
  steps = concat_steps({steps, block_per_point_steps(f.name, f.vars, reduction_var_names(f), threads)});
}

namespace {

// Each input the product of `f` reads, staged in shared memory (padded by one element) at
// loop `at`, once per input.
void stage_inputs_in_shared(json& steps, const Problem& p, const FuncDef& f, const std::string& at) {
  std::vector<std::tuple<std::string, bool, bool>> loads;
  collect_loads(f.body->args[0], loads);
  std::set<std::string> staged;
  for (const auto& [name, plain, is_stage] : loads)
    if (!is_stage && p.pipeline.find_input(name) && staged.insert(name).second)
      steps.push_back(
          schedule_step("cache_read", f.name, {{"source", name}, {"scope", "shared"}, {"at", at}, {"pad", 1}}));
}

}  // namespace

void matmul_tile(json& steps, const Problem& p, const FuncDef& f, int64_t ti, int64_t tj, int64_t kt) {
  if (f.vars.size() < 2) return;
  std::string i = f.vars[f.vars.size() - 2], j = f.vars.back();
  std::vector<std::string> batch(f.vars.begin(), f.vars.end() - 2);
  steps.push_back(schedule_step("split", f.name, {{"loop", i}, {"factor", ti}, {"outer", "ito"}, {"inner", "iti"}}));
  steps.push_back(schedule_step("split", f.name, {{"loop", j}, {"factor", tj}, {"outer", "jto"}, {"inner", "jti"}}));
  auto red = reduction_var_names(f);
  std::vector<std::string> order = {"ito", "jto"};
  if (kt > 0 && red.size() == 1) {
    steps.push_back(
        schedule_step("split", f.name, {{"loop", red[0]}, {"factor", kt}, {"outer", "kso"}, {"inner", "ksi"}}));
    order.push_back("kso");
  }
  order.push_back("iti");
  order.push_back("jti");
  steps.push_back(schedule_step("reorder", f.name, {{"loops", order}}));
  if (!batch.empty()) {
    std::string b = fuse_loops(steps, f.name, batch, "bf");
    steps.push_back(schedule_step("bind", f.name, {{"loop", b}, {"axis", "blockIdx.z"}}));
  }
  steps.push_back(schedule_step("bind", f.name, {{"loop", "ito"}, {"axis", "blockIdx.y"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "jto"}, {"axis", "blockIdx.x"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "iti"}, {"axis", "threadIdx.y"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "jti"}, {"axis", "threadIdx.x"}}));
  if (kt > 0 && red.size() == 1) stage_inputs_in_shared(steps, p, f, "kso");
}

bool register_tiled_matmul(json& steps, const Problem& p, const FuncDef& f, int64_t rm, int64_t rn, int64_t tx,
                           int64_t ty, int64_t kt) {
  const auto red = reduction_var_names(f);
  if (f.vars.size() < 2 || red.size() != 1) return false;
  const std::string i = f.vars[f.vars.size() - 2], j = f.vars.back();
  const std::vector<std::string> batch(f.vars.begin(), f.vars.end() - 2);
  auto split = [&](const std::string& loop, int64_t factor, const char* outer, const char* inner) {
    steps.push_back(
        schedule_step("split", f.name, {{"loop", loop}, {"factor", factor}, {"outer", outer}, {"inner", inner}}));
  };
  split(j, tx, "jt", "jx");
  split("jt", rn, "jb", "jr");
  split(i, rm, "it", "ir");
  split("it", ty, "ib", "iy");
  split(red[0], kt, "ko", "ki");
  steps.push_back(schedule_step("reorder", f.name, {{"loops", {"ib", "jb", "ko", "iy", "jx", "ki", "ir", "jr"}}}));
  if (!batch.empty())
    steps.push_back(
        schedule_step("bind", f.name, {{"loop", fuse_loops(steps, f.name, batch, "bf")}, {"axis", "blockIdx.z"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "ib"}, {"axis", "blockIdx.y"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "jb"}, {"axis", "blockIdx.x"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "iy"}, {"axis", "threadIdx.y"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "jx"}, {"axis", "threadIdx.x"}}));
  stage_inputs_in_shared(steps, p, f, "ko");
  steps.push_back(schedule_step("unroll", f.name, {{"loop", "ir"}}));
  steps.push_back(schedule_step("unroll", f.name, {{"loop", "jr"}}));
  return true;
}

bool is_contraction(const FuncDef& f) {
  if (!f.is_sum_of_products() || f.vars.size() < 2) return false;
  auto loads = f.product_loads();
  return !loads || to_string(loads->first) != to_string(loads->second);
}

namespace {

// Whether the reduction of `f` splits into exactly `parts` parts at every size of `p`.
bool splits_into_parts_everywhere(const Problem& p, const FuncDef& f, int64_t parts) {
  for (const auto& [name, sizes] : p.sizes) {
    const int64_t extent = reduction_extent(f, sizes), factor = (extent + parts - 1) / parts;
    if (parts > extent || (extent + factor - 1) / factor != parts) return false;
  }
  return true;
}

}  // namespace

void unroll_serial_reduction(json& steps, const FuncDef& f) {
  if (f.body->rvars.empty()) return;
  const std::string last = f.body->rvars.back().name;
  steps.push_back(schedule_step(
      "split", f.name,
      {{"loop", last}, {"factor", kSerialReductionUnroll}, {"outer", last + "_run"}, {"inner", last + "_unrolled"}}));
  steps.push_back(schedule_step("unroll", f.name, {{"loop", last + "_unrolled"}}));
}

// Whether every load of `f` that both a reduction variable and f's last pure variable
// index has its last index free of reduction variables and moved by that pure variable
// (a minimum over the channels of NCHW data), and there is such a load: neighbouring points
// are neighbouring elements, while a reduction's elements are rows apart. Loads that the
// last pure variable does not index (a bias per channel) are the same for neighbouring
// points.
bool reduces_across_rows(const FuncDef& f) {
  if (f.vars.empty() || f.body->rvars.empty()) return false;
  std::set<std::string> rvars;
  for (const auto& r : f.body->rvars) rvars.insert(r.name);
  auto mentions_any = [&](const Expr& e) {
    return std::any_of(rvars.begin(), rvars.end(), [&](const std::string& r) { return mentions_var(e, r); });
  };
  bool any = false;
  for (const ExprNode* l : loads_in(f.body->args[0])) {
    if (l->args.empty() || std::none_of(l->args.begin(), l->args.end(), mentions_any) ||
        std::none_of(l->args.begin(), l->args.end(), [&](const Expr& a) { return mentions_var(a, f.vars.back()); }))
      continue;
    if (mentions_any(l->args.back()) || !mentions_var(l->args.back(), f.vars.back())) return false;
    any = true;
  }
  return any;
}

void reduction_grid(json& steps, const Problem& p, const FuncDef& f) {
  const SizeBindings& sizes = p.size(p.default_size);
  const int64_t extent = reduction_extent(f, sizes), points = stage_points(f, sizes);
  if (extent <= kSerialReductionMax && !f.vars.empty()) {
    flat_grid(steps, f, 256, 1);  // each thread reduces its point's few elements serially
    // A window short at every size is unrolled, its index a constant in each copy (an
    // interleave of transposed-convolution phases then reads one phase per copy).
    for (const auto& r : f.body->rvars) {
      bool short_everywhere = true;
      for (const auto& [name, at] : p.sizes)
        short_everywhere = short_everywhere && rvar_extent(r, at) <= kSerialReductionMax;
      if (short_everywhere) steps.push_back(schedule_step("unroll", f.name, {{"loop", r.name}}));
    }
  } else if (points < kFewPoints && extent >= kClusterReductionMin && !f.vars.empty()) {
    // Few long reductions: each point's elements split over a cluster of blocks, each block's
    // threads combining their part first; larger blocks, then a larger cluster, until the
    // grid fills the machine.
    int64_t cluster = 8, threads = 256;
    while (threads < 1024 && static_cast<double>(points * cluster * threads) < kMachineThreads) threads *= 2;
    if (static_cast<double>(points * cluster * threads) < kMachineThreads && splits_into_parts_everywhere(p, f, 16))
      cluster = 16;
    const std::string flat = fuse_loops(steps, f.name, f.vars, "flat");
    steps.push_back(schedule_step("bind", f.name, {{"loop", flat}, {"axis", "blockIdx.y"}}));
    const std::string red = fuse_loops(steps, f.name, reduction_var_names(f), "red");
    steps.push_back(
        schedule_step("split", f.name, {{"loop", red}, {"parts", cluster}, {"outer", "redc"}, {"inner", "redr"}}));
    // Each thread's part as float4 loads, 4 of them unrolled (16 elements in flight), where
    // the innermost reduction variable is whole float4s and the parts split evenly at the
    // default size; else one element at a time.
    constexpr int64_t kLanes = 4, kUnrolled = 4;
    const auto& rvars = f.body->rvars;
    const bool lanes = !rvars.empty() && rvar_extent(rvars.back(), sizes) % kLanes == 0 &&
                       extent % (cluster * threads * kLanes * kUnrolled) == 0;
    if (lanes) {
      steps.push_back(schedule_step(
          "split", f.name, {{"loop", "redr"}, {"factor", threads * kLanes}, {"outer", "reds"}, {"inner", "redq"}}));
      steps.push_back(
          schedule_step("split", f.name, {{"loop", "redq"}, {"factor", kLanes}, {"outer", "redt"}, {"inner", "redv"}}));
      steps.push_back(schedule_step("split", f.name,
                                    {{"loop", "reds"}, {"factor", kUnrolled}, {"outer", "redo"}, {"inner", "redu"}}));
      steps.push_back(schedule_step("vectorize", f.name, {{"loop", "redv"}}));
      steps.push_back(schedule_step("unroll", f.name, {{"loop", "redu"}}));
    } else {
      steps.push_back(schedule_step("split", f.name,
                                    {{"loop", "redr"}, {"factor", threads}, {"outer", "reds"}, {"inner", "redt"}}));
    }
    steps.push_back(schedule_step("cross_thread_reduce", f.name, {{"loop", "redt"}, {"kind", "block"}}));
    steps.push_back(schedule_step("cross_thread_reduce", f.name, {{"loop", "redc"}, {"kind", "cluster"}}));
  } else if (extent <= 4096 && static_cast<double>(points) >= kMachineThreads && reduces_across_rows(f)) {
    // One thread per point, serially, unrolled by 8: a warp's loads are 32 neighbouring
    // elements, where a warp per point would read 32 rows.
    flat_grid(steps, f, 256, 1);
    if (rvar_extent(f.body->rvars.back(), sizes) >= kSerialReductionUnroll) unroll_serial_reduction(steps, f);
  } else if (extent <= kWarpReductionMax && static_cast<double>(points) * 32 >= kMachineThreads && !f.vars.empty()) {
    const std::string flat = fuse_loops(steps, f.name, f.vars, "flat");
    steps.push_back(schedule_step(
        "split", f.name,
        {{"loop", flat}, {"factor", kWarpPointsPerBlock}, {"outer", "flat_block"}, {"inner", "flat_warp"}}));
    steps.push_back(schedule_step("bind", f.name, {{"loop", "flat_block"}, {"axis", "blockIdx.x"}}));
    steps.push_back(schedule_step("bind", f.name, {{"loop", "flat_warp"}, {"axis", "threadIdx.y"}}));
    steps = concat_steps({steps, cross_thread_reduction_steps(f.name, reduction_var_names(f), 32)});
  } else {
    int64_t threads = extent <= 32 ? 32 : extent <= 64 ? 64 : extent <= 128 ? 128 : 256;
    while (threads < 1024 && extent >= 8 * 2 * threads && static_cast<double>(points * threads) < kMachineThreads)
      threads *= 2;
    block_per_point(steps, f, threads);
  }
}

bool read_by_contraction(const Problem& p, const std::string& stage) {
  for (const auto& g : p.pipeline.stages()) {
    if (!is_contraction(*g)) continue;
    std::vector<std::tuple<std::string, bool, bool>> loads;
    collect_loads(g->body, loads);
    for (const auto& l : loads)
      if (std::get<0>(l) == stage) return true;
  }
  return false;
}

namespace {

bool inlined_by_schedule_rest(const Problem& p, const FuncDef& f) {
  return !f.is_reduction() && !p.pipeline.is_output(f.name) && !read_by_contraction(p, f.name);
}

// Whether every load of `e` reads along `inner` contiguously (its last index is `inner`
// itself, no other index mentions it) or not at all, through the pointwise producers
// that schedule_rest inlines (each along its own innermost variable).
bool reads_contiguously(const Problem& p, const Expr& e, const std::string& inner, int depth) {
  if (!e.defined()) return true;
  if (e->op == ExprOp::Load && !e->args.empty()) {
    for (size_t d = 0; d + 1 < e->args.size(); ++d)
      if (mentions_var(e->args[d], inner)) return false;
    const Expr& last = e->args.back();
    if (mentions_var(last, inner) && !(last->op == ExprOp::Var && last->name == inner)) return false;
    const FuncDef* g = p.pipeline.find_stage(e->name);
    if (g && inlined_by_schedule_rest(p, *g) && !g->vars.empty() &&
        (depth > 16 || !reads_contiguously(p, g->body, g->vars.back(), depth + 1)))
      return false;
  }
  for (const auto& a : e->args)
    if (!reads_contiguously(p, a, inner, depth)) return false;
  return true;
}

}  // namespace

bool float4_rows(const Problem& p, const FuncDef& f) {
  if (f.vars.empty() || f.extents.empty()) return false;
  const SizeBindings sizes = p.size(p.default_size);
  return eval_int(f.extents.back(), sizes) % 4 == 0 && reads_contiguously(p, f.body, f.vars.back(), 0);
}

void pointwise_grid(json& steps, const Problem& p, const FuncDef& f, int64_t threads) {
  if (stage_points(f, p.size(p.default_size)) % 4 != 0)
    flat_grid(steps, f, threads, 1);
  else if (float4_rows(p, f))
    flat_grid(steps, f, threads, 4);
  else
    steps = concat_steps({steps, strided_flat_grid_steps(f.name, f.vars, threads, 4)});
}

void schedule_rest(json& steps, const Problem& p, const std::set<std::string>& skip, int64_t threads) {
  const auto& stages = p.pipeline.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const FuncDef& f = **it;
    if (skip.count(f.name)) continue;
    if (inlined_by_schedule_rest(p, f))
      steps.push_back(schedule_step("compute_inline", f.name));
    else if (!f.is_reduction())
      pointwise_grid(steps, p, f, threads);
    else if (is_contraction(f))
      matmul_tile(steps, p, f, 16, 16, 0);
    else
      reduction_grid(steps, p, f);
  }
}

std::vector<std::string> epilogue_candidates(const Problem& p, const std::string& product) {
  std::vector<std::string> out;
  for (const auto& f : p.pipeline.stages())
    if (p.pipeline.is_output(f->name) && f->name != product && !f->is_reduction() && !f->is_scan())
      out.push_back(f->name);
  return out;
}

void add_with_epilogues(std::vector<Sketch>& out, const Sketch& sketch, const std::vector<std::string>& epilogues) {
  out.push_back(sketch);
  for (const auto& e : epilogues) out.push_back(folded_sketch(sketch, e));
}

void same_tile_on_each(
    std::vector<Sketch>& out, const Problem& p, const TiledStages& tiled, const std::vector<std::string>& epilogues,
    const std::string& several,
    const std::function<const Sketch&(const std::vector<Sketch>&, const Sketch&, size_t)>& counterpart) {
  std::set<std::string> done;
  for (const auto& [f, _] : tiled) done.insert(f->name);
  const auto& lead = tiled.front().second;
  for (size_t i = 0; i < lead.size(); ++i) {
    json s = json::array();
    for (const auto& [f, tiles] : tiled) s = concat_steps({s, counterpart(tiles, lead[i], i).schedule});
    schedule_rest(s, p, done, 256);
    add_with_epilogues(out, {tiled.size() > 1 ? lead[i].idea + several : lead[i].idea, s}, epilogues);
  }
}

}  // namespace cusched::search
