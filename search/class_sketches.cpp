#include "search/class_sketches.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "dsl/expr_substitute.h"
#include "dsl/schedule.h"
#include "dsl/step_builder.h"
#include "problems/automatic_baseline.h"
#include "problems/baseline_steps.h"
#include "search/convolution_tile_sketches.h"
#include "search/fused_tile_sketches.h"
#include "search/tensor_core_sketches.h"

namespace cusched::search {

namespace {

using nlohmann::json;

bool is_plain_var(const Expr& e) { return e.defined() && e->op == ExprOp::Var; }

// Loads in `e`: (name, whether every index is a plain variable, is a stage).
void collect_loads(const Expr& e, std::vector<std::tuple<std::string, bool, bool>>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load) {
    bool plain = std::all_of(e->args.begin(), e->args.end(), is_plain_var);
    out.emplace_back(e->name, plain, e->func != nullptr);
  }
  for (const auto& a : e->args) collect_loads(a, out);
}

int64_t rvar_extent(const ReductionVar& r, const SizeBindings& sizes) {
  return r.extent ? r.extent : eval_int(r.extent_expr, sizes);
}

int64_t reduction_extent(const FuncDef& f, const SizeBindings& sizes) {
  int64_t n = 1;
  for (const auto& r : f.body->rvars) n *= rvar_extent(r, sizes);
  return n;
}

std::vector<std::string> reduction_var_names(const FuncDef& f) {
  std::vector<std::string> out;
  if (f.is_reduction())
    for (const auto& r : f.body->rvars) out.push_back(r.name);
  return out;
}

// One thread per point of the stage's pure loops (fused), `threads` per block,
// optionally `vec` contiguous points per thread as one vector access.
void flat_grid(json& steps, const FuncDef& f, int64_t threads, int64_t vec) {
  steps = concat_steps({steps, flat_grid_steps(f.name, f.vars, threads, vec)});
}

// The output's row loops fused onto blockIdx.x and its column loops, fused, split into
// float4 lanes and `threads` threads with the column blocks on blockIdx.y: consecutive
// blocks are different rows of the same columns, so operands indexed by the columns
// only (a normalisation's weight and bias) are read from L2 by every row.
std::string rows_across_blocks(json& steps, const FuncDef& f, const std::vector<std::string>& rows,
                               const std::vector<std::string>& cols, int64_t threads) {
  std::string r = fuse_loops(steps, f.name, rows, "rw");
  std::string c = fuse_loops(steps, f.name, cols, "cl");
  steps.push_back(schedule_step("split", f.name, {{"loop", c}, {"factor", 4}, {"outer", "clx"}, {"inner", "clv"}}));
  steps.push_back(
      schedule_step("split", f.name, {{"loop", "clx"}, {"factor", threads}, {"outer", "clo"}, {"inner", "clt"}}));
  steps.push_back(schedule_step("reorder", f.name, {{"loops", {"clo", r, "clt", "clv"}}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", r}, {"axis", "blockIdx.x"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "clo"}, {"axis", "blockIdx.y"}}));
  steps.push_back(schedule_step("bind", f.name, {{"loop", "clt"}, {"axis", "threadIdx.x"}}));
  steps.push_back(schedule_step("vectorize", f.name, {{"loop", "clv"}}));
  return r;
}

// The stage's reduction loops fused, split by `threads` and combined across them.
void cross_thread(json& steps, const FuncDef& f, int64_t threads) {
  steps = concat_steps({steps, cross_thread_reduction_steps(f.name, reduction_var_names(f), threads)});
}

// One block per output point, the reduction combined across `threads` threads.
void block_per_point(json& steps, const FuncDef& f, int64_t threads) {
  steps = concat_steps({steps, block_per_point_steps(f.name, f.vars, reduction_var_names(f), threads)});
}

// A 2-D thread tile over the last two pure loops, batch loops fused onto blockIdx.z,
// and optionally the reduction split by `kt` with both operands staged in shared memory.
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
  if (kt > 0 && red.size() == 1) {
    std::vector<std::tuple<std::string, bool, bool>> loads;
    collect_loads(f.body->args[0], loads);
    std::set<std::string> staged;
    for (const auto& [name, plain, is_stage] : loads)
      if (!is_stage && p.pipeline.find_input(name) && staged.insert(name).second)
        steps.push_back(
            schedule_step("cache_read", f.name, {{"source", name}, {"scope", "shared"}, {"at", "kso"}, {"pad", 1}}));
  }
}

// Steps for the stages other than `skip`: pointwise producers inlined, the rest
// scheduled as a flat grid (pointwise) or one block per point (reductions).
void schedule_rest(json& steps, const Problem& p, const std::set<std::string>& skip, int64_t threads) {
  const auto& stages = p.pipeline.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const FuncDef& f = **it;
    if (skip.count(f.name)) continue;
    if (!f.is_reduction() && !p.pipeline.is_output(f.name))
      steps.push_back(schedule_step("compute_inline", f.name));
    else if (!f.is_reduction())
      flat_grid(steps, f, threads, 1);
    else if (f.is_sum_of_products() && f.vars.size() >= 2)
      matmul_tile(steps, p, f, 16, 16, 0);
    else
      block_per_point(steps, f, 256);
  }
}

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

// The pipeline's pointwise outputs other than `product`: each may be folded into the
// product's final store (fuse_epilogue) when it reads the product alone at its own
// point, through pointwise stages that the sketch inlines; validation refuses the rest.
std::vector<std::string> epilogue_candidates(const Problem& p, const std::string& product) {
  std::vector<std::string> out;
  for (const auto& f : p.pipeline.stages())
    if (p.pipeline.is_output(f->name) && f->name != product && !f->is_reduction() && !f->is_scan())
      out.push_back(f->name);
  return out;
}

// `sketch` with `stage` folded into its reduction's final store instead of scheduled.
Sketch folded_sketch(const Sketch& sketch, const std::string& stage) {
  return {sketch.idea + ", with " + stage + " folded into its final store (fuse_epilogue): one kernel",
          with_folded_epilogue(sketch.schedule, stage)};
}

// Each sketch, then its variant with the epilogue folded in, for every candidate.
void add_with_epilogues(std::vector<Sketch>& out, const Sketch& sketch, const std::vector<std::string>& epilogues) {
  out.push_back(sketch);
  for (const auto& e : epilogues) out.push_back(folded_sketch(sketch, e));
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
    if (n <= 4096)
      for (int64_t t : {128, 256}) {
        json s = json::array();
        flat_grid(s, *f, t, 1);
        schedule_rest(s, p, {f->name}, t);
        add_with_epilogues(out,
                           {"one thread per output of " + name + " with a serial reduction, " + std::to_string(t) +
                                " threads per block",
                            s},
                           epilogues);
      }
  }
  return out;
}

// The threads of a partial-reduction block (stage `rf`, reduction variables `rv` of
// which the first is on blocks, `serial_first` its part's serial loop) over two loops:
// float4 lanes of the last reduction variable (extent `last_extent` at the bench size)
// times as many rows of the one before as fill `threads`; the rows' outer loop unrolled
// by `unroll` (1: not), the small pure loops unrolled into register accumulators.
void partial_threads_over_two_loops(json& s, const std::string& rf, const std::vector<ReductionVar>& rv,
                                    const std::string& serial_first, const std::vector<std::string>& small,
                                    int64_t threads, int64_t last_extent, int64_t unroll) {
  const std::string mid = rv[rv.size() - 2].name, last = rv.back().name;
  s.push_back(
      schedule_step("split", rf, {{"loop", last}, {"factor", 4}, {"outer", last + "x"}, {"inner", last + "v"}}));
  s.push_back(schedule_step(
      "split", rf,
      {{"loop", mid}, {"factor", threads / (last_extent / 4)}, {"outer", mid + "o"}, {"inner", mid + "t"}}));
  std::vector<std::string> order = {serial_first};
  for (size_t i = 1; i + 2 < rv.size(); ++i) order.push_back(rv[i].name);
  if (unroll > 1) {
    s.push_back(schedule_step("split", rf,
                              {{"loop", mid + "o"}, {"factor", unroll}, {"outer", mid + "oo"}, {"inner", mid + "u"}}));
    order.push_back(mid + "oo");
    order.push_back(mid + "u");
  } else {
    order.push_back(mid + "o");
  }
  order.push_back(mid + "t");
  order.push_back(last + "x");
  for (const auto& m : small) order.push_back(m);
  order.push_back(last + "v");
  s.push_back(schedule_step("reorder", rf, {{"loops", order}}));
  s.push_back(schedule_step("fuse", rf, {{"outer", mid + "t"}, {"inner", last + "x"}, {"fused", "rt"}}));
  s.push_back(schedule_step("cross_thread_reduce", rf, {{"loop", "rt"}, {"kind", "block"}}));
  if (unroll > 1) s.push_back(schedule_step("unroll", rf, {{"loop", mid + "u"}}));
  for (const auto& m : small) s.push_back(schedule_step("unroll", rf, {{"loop", m}}));
  s.push_back(schedule_step("vectorize", rf, {{"loop", last + "v"}}));
}

// For few, long rows: each reduction producer (with two or more reduction variables)
// is rfactored over its first one, so that many blocks each reduce one chunk of a row
// (the chunk's last reduction loop across the block's threads, small pure loops such as
// a moment index unrolled into register accumulators), a small stage combines the
// chunks, and the output is float4 accesses on a flat grid or with the rows
// (`row_vars`, both lists non-empty) on blockIdx.x. With the rows on blockIdx.x there is
// also a two-kernel form: the first variable split into 8 parts, each partial block
// reducing its part's chunks serially, and every output block combining its row's 8
// partials itself (the statistic computed at the output's row loop, its pure loops on
// threads), so that no kernel of its own combines them.
void split_row_sketches(std::vector<Sketch>& out, const Problem& p, const FuncDef& y,
                        const std::vector<const FuncDef*>& producers, const std::vector<std::string>& row_vars,
                        const std::vector<std::string>& col_vars) {
  for (const auto* f : producers)
    if (f->body->rvars.size() < 2 || !reduce_rfactors(f->body->reduce_op)) return;
  // The two-kernel form: kParts partials per row from blocks of 1024 threads (float4 lanes
  // of the last reduction variable times rows of the one before it). It needs three or
  // more reduction variables, kParts chunks of the first at every size, and a last one
  // of at most 4096 elements in whole float4s at the bench size.
  constexpr int64_t kParts = 8, kThreads = 1024;
  bool parts_fit = true;
  for (const auto* f : producers) {
    const auto& rv = f->body->rvars;
    const int64_t last = rvar_extent(rv.back(), p.size("bench"));
    parts_fit = parts_fit && rv.size() >= 3 && last % 4 == 0 && last / 4 <= kThreads;
    for (const auto& [size, bindings] : p.sizes) parts_fit = parts_fit && rvar_extent(rv[0], bindings) >= kParts;
  }
  for (int64_t unroll : {1, 8})
    for (bool rows_on_x : {false, true})
      for (bool combine_in_output : {false, true}) {
        if (combine_in_output && (!rows_on_x || !parts_fit)) continue;
        json s = json::array();
        std::vector<std::pair<const FuncDef*, std::string>>
            combined;  // statistics combined in the output, their parts loop
        std::set<std::string> done = {y.name};
        for (const auto* f : producers) {
          const auto& rv = f->body->rvars;
          std::vector<std::string> rows, small;
          for (const auto& v : f->vars)
            (std::find(y.vars.begin(), y.vars.end(), v) != y.vars.end() ? rows : small).push_back(v);
          const std::string rf = f->name + "_rf", last = rv.back().name;
          std::string chunk = rv[0].name, inner_chunk;
          if (combine_in_output) {
            inner_chunk = chunk + "q";
            s.push_back(
                schedule_step("split", f->name,
                              {{"loop", chunk}, {"parts", kParts}, {"outer", chunk + "g"}, {"inner", inner_chunk}}));
            chunk += "g";
          }
          s.push_back(schedule_step("rfactor", f->name, {{"loop", chunk}, {"name", rf}}));
          done.insert(f->name);
          done.insert(rf);
          // The partial stage: chunk and rows on blocks, the chunk's last reduction loop on threads.
          std::vector<std::string> order = {chunk};
          for (const auto& r : rows) order.push_back(r);
          if (!inner_chunk.empty()) order.push_back(inner_chunk);
          for (size_t i = 1; i < rv.size(); ++i) order.push_back(rv[i].name);
          for (const auto& m : small) order.push_back(m);
          s.push_back(schedule_step("reorder", rf, {{"loops", order}}));
          std::string block = chunk;
          for (const auto& r : rows) {
            s.push_back(schedule_step("fuse", rf, {{"outer", block}, {"inner", r}, {"fused", block + r}}));
            block += r;
          }
          s.push_back(schedule_step("bind", rf, {{"loop", block}, {"axis", "blockIdx.x"}}));
          if (combine_in_output) {
            partial_threads_over_two_loops(s, rf, rv, inner_chunk, small, kThreads,
                                           rvar_extent(rv.back(), p.size("bench")), unroll);
            combined.emplace_back(f, chunk);
            continue;
          }
          if (unroll > 1 && rv.size() >= 3) {
            const std::string mid = rv[rv.size() - 2].name;
            s.push_back(schedule_step("split", rf,
                                      {{"loop", mid}, {"factor", unroll}, {"outer", mid + "o"}, {"inner", mid + "u"}}));
            s.push_back(schedule_step("unroll", rf, {{"loop", mid + "u"}}));
          }
          for (const auto& m : small) s.push_back(schedule_step("unroll", rf, {{"loop", m}}));
          s.push_back(schedule_step("split", rf,
                                    {{"loop", last}, {"factor", 256}, {"outer", last + "o"}, {"inner", last + "t"}}));
          s.push_back(schedule_step("cross_thread_reduce", rf, {{"loop", last + "t"}, {"kind", "block"}}));
          // The combining stage: one block per row, the chunks across its threads.
          std::vector<std::string> forder = {chunk};
          for (const auto& m : small) forder.push_back(m);
          if (!small.empty()) s.push_back(schedule_step("reorder", f->name, {{"loops", forder}}));
          std::string row = fuse_loops(s, f->name, rows, "rw");
          s.push_back(schedule_step("bind", f->name, {{"loop", row}, {"axis", "blockIdx.x"}}));
          for (const auto& m : small) s.push_back(schedule_step("unroll", f->name, {{"loop", m}}));
          s.push_back(schedule_step("split", f->name,
                                    {{"loop", chunk}, {"factor", 64}, {"outer", chunk + "o"}, {"inner", chunk + "t"}}));
          s.push_back(schedule_step("cross_thread_reduce", f->name, {{"loop", chunk + "t"}, {"kind", "block"}}));
        }
        const std::string row_loop =
            rows_on_x ? rows_across_blocks(s, y, row_vars, col_vars, combine_in_output ? 256 : 64) : "";
        if (!rows_on_x) flat_grid(s, y, 256, 4);
        // A statistic combined in each output block: one thread per value of its row, the parts unrolled.
        for (const auto& [f, parts_loop] : combined) {
          s.push_back(schedule_step("compute_at", f->name, {{"consumer", y.name}, {"loop", row_loop}}));
          s.push_back(schedule_step("bind", f->name,
                                    {{"loop", fuse_loops(s, f->name, f->vars, "pv")}, {"axis", "threadIdx.x"}}));
          s.push_back(schedule_step("unroll", f->name, {{"loop", parts_loop}}));
        }
        schedule_rest(s, p, done, 256);
        out.push_back(
            {"split rows: each reduction over chunks of its first variable on many blocks, combined " +
                 (combine_in_output ? "by every output block from " + std::to_string(kParts) + " partials per row"
                                    : std::string("per row")) +
                 (unroll > 1 ? ", the middle loop unrolled by 8" : "") +
                 (rows_on_x ? ", float4 output with the rows on blockIdx.x" : ", float4 output on a flat grid"),
             s});
      }
}

// The one input tensor that every stage of `stages` reads, or "" when there is not
// exactly one.
std::string input_read_by_all(const std::vector<const FuncDef*>& stages) {
  std::set<std::string> common;
  bool first = true;
  for (const FuncDef* f : stages) {
    std::vector<std::tuple<std::string, bool, bool>> loads;
    collect_loads(f->body, loads);
    std::set<std::string> inputs;
    for (const auto& [n, plain, is_stage] : loads)
      if (!is_stage) inputs.insert(n);
    if (first)
      common = inputs;
    else
      std::erase_if(common, [&](const std::string& n) { return !inputs.count(n); });
    first = false;
  }
  return common.size() == 1 ? *common.begin() : "";
}

// Rows spread over a thread-block cluster (one row variable, one column variable, every
// producer a single reduction over a variable of its own): each block reduces its
// slice, the cluster combines the blocks' results, and each block normalises its slice;
// either every block takes every cluster-th chunk of the row and re-reads it, or each
// block takes one contiguous slice that it copies into shared memory once for the
// reductions and the output (when they all read one input), part of it kept in
// registers in some sketches.
void cluster_row_sketches(std::vector<Sketch>& out, const FuncDef& y, const std::vector<const FuncDef*>& producers,
                          const std::vector<std::string>& row_vars, const std::vector<std::string>& col_vars) {
  if (row_vars.size() != 1 || col_vars.size() != 1 || producers.empty()) return;
  std::vector<std::string> names;
  std::string rvar;
  for (const auto* f : producers) {
    if (f->body->rvars.size() != 1 || (!rvar.empty() && f->body->rvars[0].name != rvar)) return;
    if (!reduce_combines_across_cluster(f->body->reduce_op)) return;
    rvar = f->body->rvars[0].name;
    names.push_back(f->name);
  }
  for (int64_t cluster : {2, 4, 8})
    for (int64_t threads : {512, 1024})
      for (bool vector_loads : {false, true})
        out.push_back({"rows over clusters of " + std::to_string(cluster) + " blocks of " + std::to_string(threads) +
                           " threads" + (vector_loads ? ", float4 reductions" : ""),
                       cluster_row_normalizer_steps(y.name, row_vars[0], col_vars[0], names, rvar, cluster, threads,
                                                    vector_loads)});
  std::vector<const FuncDef*> readers = producers;
  readers.push_back(&y);
  const std::string source = input_read_by_all(readers);
  if (source.empty()) return;
  for (int64_t cluster : {4, 8, 16})
    for (int64_t threads : {128, 256, 512})
      out.push_back(
          {"row slices in shared memory, read once by " + std::to_string(names.size()) +
               " reductions and the output, over clusters of " + std::to_string(cluster) + " blocks of " +
               std::to_string(threads) + " threads",
           cluster_slice_normalizer_steps(y.name, row_vars[0], col_vars[0], names, rvar, source, cluster, threads)});
  // The same slices of 256 threads with each thread's last 2 float4 in registers and
  // launch bounds of 8 blocks per multiprocessor (32 registers each), so that more blocks
  // fit while they wait for their cluster (8 where a block's shared memory is at most
  // 228 KiB / 8 less the 1 KiB each block reserves: clusters of 8 at softmax's bench size).
  for (int64_t cluster : {4, 8, 16}) {
    json s = cluster_slice_normalizer_steps(y.name, row_vars[0], col_vars[0], names, rvar, source, cluster, 256, 2);
    s.push_back(schedule_step("launch_bounds", y.name, {{"max_threads", 256}, {"min_blocks", 8}}));
    out.push_back(
        {"row slices over clusters of " + std::to_string(cluster) +
             " blocks of 256 threads, each thread's last 2 float4 in registers, launch bounds of 8 blocks per SM",
         s});
  }
}

std::vector<Sketch> normalisation_sketches(const Problem& p) {
  std::vector<Sketch> out;
  const FuncDef* y = p.pipeline.find_stage(p.pipeline.outputs()[0]);
  std::vector<const FuncDef*> producers;
  for (const auto& f : p.pipeline.stages())
    if (f->name != y->name && f->is_reduction()) producers.push_back(f.get());
  // The rows: the output's leading variables that every producer also has (a
  // producer's own extra variables, such as a moment index, are not rows).
  size_t rows = 0;
  while (
      rows < y->vars.size() && !producers.empty() &&
      std::all_of(
          producers.begin(), producers.end(),
          [&](const FuncDef* f) { return std::find(f->vars.begin(), f->vars.end(), y->vars[rows]) != f->vars.end(); }))
    ++rows;
  if (rows == 0 || rows >= y->vars.size()) return out;
  std::vector<std::string> row_vars(y->vars.begin(), y->vars.begin() + static_cast<std::ptrdiff_t>(rows));
  std::vector<std::string> col_vars(y->vars.begin() + static_cast<std::ptrdiff_t>(rows), y->vars.end());
  std::string names;
  for (const auto* f : producers) names += (names.empty() ? "" : " and ") + f->name;
  for (int64_t t : {256, 512, 1024})
    for (int64_t v : {1, 4}) {
      json s = json::array();
      std::string r = fuse_loops(s, y->name, row_vars, "rw");
      std::string c = fuse_loops(s, y->name, col_vars, "cl");
      if (v > 1) {
        s.push_back(schedule_step("split", y->name, {{"loop", c}, {"factor", v}, {"outer", "clx"}, {"inner", "clv"}}));
        c = "clx";
      }
      s.push_back(schedule_step("split", y->name, {{"loop", c}, {"factor", t}, {"outer", "clo"}, {"inner", "clt"}}));
      s.push_back(schedule_step("bind", y->name, {{"loop", r}, {"axis", "blockIdx.x"}}));
      s.push_back(schedule_step("bind", y->name, {{"loop", "clt"}, {"axis", "threadIdx.x"}}));
      if (v > 1) s.push_back(schedule_step("vectorize", y->name, {{"loop", "clv"}}));
      std::set<std::string> done = {y->name};
      for (auto it = producers.rbegin(); it != producers.rend(); ++it) {
        s.push_back(schedule_step("compute_at", (*it)->name, {{"consumer", y->name}, {"loop", r}}));
        cross_thread(s, **it, t);
        done.insert((*it)->name);
      }
      schedule_rest(s, p, done, t);
      out.push_back({"one block per row: " + names + " fused into " + y->name + " and combined across " +
                         std::to_string(t) + " threads" + (v > 1 ? ", float4 accesses" : ""),
                     s});
    }
  split_row_sketches(out, p, *y, producers, row_vars, col_vars);
  cluster_row_sketches(out, *y, producers, row_vars, col_vars);
  return out;
}

std::vector<Sketch> matmul_sketches(const Problem& p) {
  std::vector<Sketch> out;
  for (const auto& f : p.pipeline.stages()) {
    if (!f->is_sum_of_products() || f->vars.size() < 2) continue;
    const auto epilogues = epilogue_candidates(p, f->name);
    for (auto& sketch : tensor_core_tile_sketches(*f)) {
      schedule_rest(sketch.schedule, p, {f->name}, 256);
      add_with_epilogues(out, sketch, epilogues);
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
  std::vector<std::pair<const FuncDef*, std::vector<Sketch>>> tiled;
  std::vector<std::string> epilogues;
  for (const auto& f : p.pipeline.stages())
    if (f->is_sum_of_products())
      if (auto tiles = convolution_tile_sketches(*f, sizes); !tiles.empty()) {
        if (tiled.empty()) epilogues = epilogue_candidates(p, f->name);
        tiled.emplace_back(f.get(), std::move(tiles));
      }
  if (!tiled.empty()) {
    if (tiled.size() > 1) epilogues.clear();  // an epilogue folds into one product only
    std::set<std::string> done;
    for (const auto& [f, _] : tiled) done.insert(f->name);
    for (const auto& first : tiled.front().second) {
      json s = json::array();
      for (const auto& [f, tiles] : tiled) {
        auto same = std::find_if(tiles.begin(), tiles.end(), [&](const Sketch& t) { return t.idea == first.idea; });
        s = concat_steps({s, same != tiles.end() ? same->schedule : tiles.front().schedule});
      }
      schedule_rest(s, p, done, 256);
      std::string idea = first.idea;
      if (tiled.size() > 1) idea += ", on each of the " + std::to_string(tiled.size()) + " convolution stages";
      add_with_epilogues(out, {idea, s}, epilogues);
    }
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
    if (f->is_sum_of_products() && f->vars.size() >= 2) {
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

std::vector<Sketch> class_sketches(const Problem& problem, ProblemClass c) {
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
}  // namespace cusched::search
