#include "search/class_sketches.h"

#include <algorithm>
#include <optional>
#include <set>

#include "codegen/expr_loads.h"
#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"
#include "search/convolution_tile_sketches.h"
#include "search/fast_epilogue.h"
#include "search/fused_tile_sketches.h"
#include "search/normalisation_sketches.h"
#include "search/presum_sketches.h"
#include "search/sketch_steps.h"
#include "search/tensor_core_sketches.h"
#include "search/variance_sums.h"

namespace cusched::search {

namespace {

using nlohmann::json;

std::vector<Sketch> pointwise_sketches(const Problem& p) {
  std::vector<Sketch> out;
  const FuncDef* f = p.pipeline.find_stage(p.pipeline.outputs()[0]);
  for (int64_t t : {128, 256, 512})
    for (int64_t v : {1, 4}) {
      json s = json::array();
      flat_grid(s, *f, t, v);
      schedule_rest(s, p, {f->name}, t);
      out.push_back({"one thread per " + std::string(v > 1 ? "4 contiguous elements (float4)" : "element") + ", " +
                         std::to_string(t) + " threads per block, producers inlined",
                     s});
    }
  return out;
}

// A window reduction (pooling: a short reduction whose body loads one tensor) with the
// window's inputs staged in shared memory: blocks of `threads` outputs, tiles of
// threads / 32 rows x 32 columns of the last two output loops (a run of `threads` along a
// single one), the other loops fused onto blockIdx.x with the tiles, the block's input
// region copied once and each thread's window read from the copy, the window loops
// unrolled. Nullopt for another stage.
std::optional<json> staged_window(const FuncDef& f, int64_t threads) {
  std::set<std::string> sources;
  for (const ExprNode* l : loads_in(f.body)) sources.insert(l->name);
  if (sources.size() != 1 || f.vars.empty()) return std::nullopt;
  json s = json::array();
  const bool tiled = f.vars.size() >= 2;  // rows x columns of the last two loops, else a run of the last
  std::vector<std::string> block(f.vars.begin(), f.vars.end() - (tiled ? 2 : 1));
  const int64_t tx = tiled ? 32 : threads;
  s.push_back(
      schedule_step("split", f.name, {{"loop", f.vars.back()}, {"factor", tx}, {"outer", "colb"}, {"inner", "colt"}}));
  if (tiled) {
    s.push_back(schedule_step(
        "split", f.name,
        {{"loop", f.vars[f.vars.size() - 2]}, {"factor", threads / tx}, {"outer", "rowb"}, {"inner", "rowt"}}));
    block.push_back("rowb");
  }
  block.push_back("colb");
  std::vector<std::string> order = block;
  if (tiled) order.push_back("rowt");
  order.push_back("colt");
  for (const auto& r : f.body->rvars) order.push_back(r.name);
  s.push_back(schedule_step("reorder", f.name, {{"loops", order}}));
  const std::string blk = fuse_loops(s, f.name, block, "blk");
  s.push_back(schedule_step("bind", f.name, {{"loop", blk}, {"axis", "blockIdx.x"}}));
  if (tiled) s.push_back(schedule_step("bind", f.name, {{"loop", "rowt"}, {"axis", "threadIdx.y"}}));
  s.push_back(schedule_step("bind", f.name, {{"loop", "colt"}, {"axis", "threadIdx.x"}}));
  s.push_back(schedule_step("cache_read", f.name, {{"source", *sources.begin()}, {"scope", "shared"}, {"at", blk}}));
  for (const auto& r : f.body->rvars) s.push_back(schedule_step("unroll", f.name, {{"loop", r.name}}));
  return s;
}

// For each reduction stage (an output, or the stage a pointwise output divides, scales or
// otherwise reads at its own point): one block per output point with the reduction across
// its threads, or, for short reductions, one thread per output point; each also with the
// pointwise output folded into the reduction's final store where that applies.
std::vector<Sketch> reduction_sketches(const Problem& p) {
  std::vector<Sketch> out;
  const SizeBindings& bench = p.size("bench");
  for (const auto& stage : p.pipeline.stages()) {
    const FuncDef* f = stage.get();
    if (!f->is_reduction() || f->is_scan()) continue;
    const std::string& name = f->name;
    const auto epilogues = epilogue_candidates(p, name);
    if (!p.pipeline.is_output(name) && epilogues.empty()) continue;
    int64_t n = reduction_extent(*f, bench);
    for (int64_t t : {32, 128, 256, 512}) {
      json s = json::array();
      block_per_point(s, *f, t);
      schedule_rest(s, p, {f->name}, 256);
      add_with_epilogues(
          out,
          {"one block per output of " + name + ", its reduction combined across " + std::to_string(t) + " threads", s},
          epilogues);
    }
    // A serial reduction of 64 or more elements is also unrolled (unroll_serial_reduction),
    // so that each thread has 8 loads in flight rather than one; of those the plain form
    // stays at 128 threads only.
    const std::vector<std::pair<int64_t, bool>> serial =  // (threads, unrolled)
        n >= 64 ? std::vector<std::pair<int64_t, bool>>{{128, false}, {128, true}, {256, true}}
                : std::vector<std::pair<int64_t, bool>>{{128, false}, {256, false}};
    if (n <= 4096)
      for (const auto& [t, unrolled] : serial) {
        json s = json::array();
        flat_grid(s, *f, t, 1);
        if (unrolled) unroll_serial_reduction(s, *f);
        schedule_rest(s, p, {f->name}, t);
        add_with_epilogues(out,
                           {"one thread per output of " + name + " with a serial reduction" +
                                (unrolled ? " unrolled by 8" : "") + ", " + std::to_string(t) + " threads per block",
                            s},
                           epilogues);
      }
    if (n <= 64)
      for (int64_t t : {128, 256})
        if (auto steps = staged_window(*f, t)) {
          json s = *steps;
          schedule_rest(s, p, {f->name}, t);
          add_with_epilogues(
              out,
              {"one thread per output of " + name + ", the block's window inputs staged in shared memory, " +
                   std::to_string(t) + " threads per block",
               s},
              epilogues);
        }
  }
  return out;
}

// The tensor-core tiles of the first matrix product, each with the tile of the same rank
// (or the first) on every other product of the chain, so that a chain of GEMMs is tiled
// throughout; an epilogue folds into the one product where there is one.
void chained_tensor_core_sketches(std::vector<Sketch>& out, const Problem& p, const FuncDef& first) {
  TiledStages tiled;
  for (const auto& f : p.pipeline.stages())
    if (f.get() == &first || is_contraction(*f))
      if (auto tiles = tensor_core_tile_sketches(*f); !tiles.empty()) tiled.emplace_back(f.get(), std::move(tiles));
  if (tiled.empty() || tiled.front().first != &first) return;
  const auto epilogues = tiled.size() == 1 ? epilogue_candidates(p, first.name) : std::vector<std::string>{};
  same_tile_on_each(out, p, tiled, epilogues,
                    ", and the same tile on each of the " + std::to_string(tiled.size() - 1) + " other products",
                    [](const std::vector<Sketch>& tiles, const Sketch&, size_t i) -> const Sketch& {
                      return i < tiles.size() ? tiles[i] : tiles.front();
                    });
}

std::vector<Sketch> matmul_sketches(const Problem& p) {
  std::vector<Sketch> out;
  for (const auto& f : p.pipeline.stages()) {
    if (!is_contraction(*f)) continue;
    const auto epilogues = epilogue_candidates(p, f->name);
    chained_tensor_core_sketches(out, p, *f);
    for (auto& sketch : split_k_tensor_core_sketches(p, *f)) {
      schedule_rest(sketch.schedule, p, {f->name}, 256);
      out.push_back(std::move(sketch));
    }
    fused_tile_sketches(out, p);
    for (auto [ti, tj, kt] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {16, 16, 0}, {16, 16, 16}, {8, 32, 0}, {32, 32, 32}, {8, 32, 32}}) {
      json s = json::array();
      matmul_tile(s, p, *f, ti, tj, kt);
      schedule_rest(s, p, {f->name}, 256);
      std::string idea = std::to_string(ti) + "x" + std::to_string(tj) + " thread tiles of " + f->name;
      if (kt) idea += ", k in steps of " + std::to_string(kt) + " with the operands staged in shared memory";
      add_with_epilogues(out, {idea, s}, epilogues);
    }
    // Register tiles on CUDA cores: the f32 kernels a 1e-4 tolerance or a cancelling sum admits.
    for (auto [r, kt] : std::vector<std::pair<int64_t, int64_t>>{{8, 16}, {4, 16}}) {
      json s = json::array();
      if (!register_tiled_matmul(s, p, *f, r, r, 16, 16, kt)) break;
      schedule_rest(s, p, {f->name}, 256);
      add_with_epilogues(out,
                         {"register tiles of " + std::to_string(r) + "x" + std::to_string(r) + " outputs of " +
                              f->name + " per thread, 16x16 threads per block, k in steps of " + std::to_string(kt) +
                              " with the operands staged in shared memory (f32 on CUDA cores)",
                          s},
                         epilogues);
    }
    break;
  }
  return out;
}

// Convolution tiles (convolution_tile_sketches.h) on every convolution-shaped stage, the
// same tile on each where it applies (a stage without that tile takes its first); the
// flat grid with the reduction serial as the fallback.
std::vector<Sketch> convolution_sketches(const Problem& p) {
  std::vector<Sketch> out;
  const SizeBindings& sizes = p.size(p.default_size);
  TiledStages tiled;
  std::vector<std::string> epilogues;
  // The data may be copied channels last where it is an input of the pipeline and read by
  // its only convolution-shaped stage (the phases of a transposed convolution would each
  // copy the whole input).
  const auto& stages = p.pipeline.stages();
  const bool one_convolution = std::count_if(stages.begin(), stages.end(), [](const auto& s) {
                                 return s->is_sum_of_products() && convolution_roles(*s).has_value();
                               }) == 1;
  for (const auto& f : stages)
    if (f->is_sum_of_products()) {
      const auto roles = convolution_roles(*f);
      const bool channels_last = one_convolution && roles && p.pipeline.find_input(roles->data);
      if (auto tiles = convolution_tile_sketches(*f, sizes, channels_last); !tiles.empty()) {
        if (tiled.empty()) epilogues = epilogue_candidates(p, f->name);
        tiled.emplace_back(f.get(), std::move(tiles));
      }
    }
  if (!tiled.empty()) {
    if (tiled.size() > 1) epilogues.clear();  // an epilogue folds into one product only
    same_tile_on_each(
        out, p, tiled, epilogues, ", on each of the " + std::to_string(tiled.size()) + " convolution stages",
        [](const std::vector<Sketch>& tiles, const Sketch& lead, size_t) -> const Sketch& {
          auto same = std::find_if(tiles.begin(), tiles.end(), [&](const Sketch& t) { return t.idea == lead.idea; });
          return same != tiles.end() ? *same : tiles.front();
        });
  }
  // A convolution's sum of products as a flat grid, one thread per output.
  json flat = json::array();
  int products = 0;
  for (const auto& f : p.pipeline.stages())
    if (f->is_sum_of_products() && products++ == 0) {
      flat_grid(flat, *f, 256, 1);
      schedule_rest(flat, p, {f->name}, 256);
      epilogues = epilogue_candidates(p, f->name);
    }
  if (products > 1) epilogues.clear();
  add_with_epilogues(out, {"one thread per output with the reduction serial, 256 threads per block", flat}, epilogues);
  return out;
}

}  // namespace

std::string problem_class_name(ProblemClass c) {
  switch (c) {
    case ProblemClass::pointwise:
      return "pointwise";
    case ProblemClass::reduction:
      return "reduction";
    case ProblemClass::normalisation:
      return "normalisation";
    case ProblemClass::matmul:
      return "matmul";
    case ProblemClass::convolution:
      return "convolution";
  }
  return "?";
}

ProblemClass classify_pipeline(const Pipeline& pipeline) {
  bool any_reduction = false;
  for (const auto& f : pipeline.stages()) {
    if (!f->is_reduction()) continue;
    any_reduction = true;
    if (is_contraction(*f)) {
      std::vector<std::tuple<std::string, bool, bool>> loads;
      collect_loads(f->body->args[0], loads);
      bool plain = std::all_of(loads.begin(), loads.end(), [](const auto& l) { return std::get<1>(l); });
      return plain ? ProblemClass::matmul : ProblemClass::convolution;
    }
  }
  if (!any_reduction) return ProblemClass::pointwise;
  for (const auto& name : pipeline.outputs()) {
    const FuncDef* f = pipeline.find_stage(name);
    if (!f || f->is_reduction()) continue;
    std::vector<std::tuple<std::string, bool, bool>> loads;
    collect_loads(f->body, loads);
    bool reads_reduction = false, reads_input = false;
    for (const auto& [n, plain, is_stage] : loads) {
      const FuncDef* s = pipeline.find_stage(n);
      if (s && s->is_reduction()) reads_reduction = true;
      if (!is_stage) reads_input = true;
    }
    if (reads_reduction && reads_input) return ProblemClass::normalisation;
  }
  return ProblemClass::reduction;
}

namespace {

std::vector<Sketch> sketches_of_class(const Problem& problem, ProblemClass c) {
  switch (c) {
    case ProblemClass::pointwise:
      return pointwise_sketches(problem);
    case ProblemClass::reduction:
      return reduction_sketches(problem);
    case ProblemClass::normalisation:
      return normalisation_sketches(problem);
    case ProblemClass::matmul:
      return matmul_sketches(problem);
    case ProblemClass::convolution:
      return convolution_sketches(problem);
  }
  return {};
}

}  // namespace

std::vector<Sketch> class_sketches(const Problem& problem, ProblemClass c) {
  std::vector<Sketch> out;
  for (auto& s : sketches_of_class(problem, c))
    out.push_back(with_sums_from_variances(problem, with_fast_epilogue(problem, std::move(s))));
  for (auto& s : presum_sketches(problem)) out.push_back(std::move(s));
  return out;
}
}  // namespace cusched::search
