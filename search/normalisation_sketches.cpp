#include "search/normalisation_sketches.h"

#include <algorithm>

#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"
#include "search/sketch_steps.h"

namespace cusched::search {

using nlohmann::json;

namespace {

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
        if (!rows_on_x) pointwise_grid(s, p, y, 256);
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
                 (rows_on_x           ? ", float4 output with the rows on blockIdx.x"
                  : float4_rows(p, y) ? ", float4 output on a flat grid"
                                      : ", output on a flat grid, 4 points a thread a block's width apart"),
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

// Rows spread over a thread-block cluster (the row variables, the column variables and
// each producer's reduction variables fused into one loop each; every producer reduces
// over variables of the same names): each block reduces its
// slice, the cluster combines the blocks' results, and each block normalises its slice;
// either every block takes every cluster-th chunk of the row and re-reads it, or each
// block takes one contiguous slice that it copies into shared memory once for the
// reductions and the output (when they all read one input), part of it kept in
// registers in some sketches.
void cluster_row_sketches(std::vector<Sketch>& out, const FuncDef& y, const std::vector<const FuncDef*>& producers,
                          const std::vector<std::string>& row_vars, const std::vector<std::string>& col_vars) {
  if (row_vars.empty() || col_vars.empty() || producers.empty()) return;
  // Several row, column or reduction variables (InstanceNorm's (n, c) rows of (h, w)
  // columns) are fused into one each first: the producers' reductions into one loop of the
  // same name.
  json first = json::array();
  const std::string row = fuse_loops(first, y.name, row_vars, "rowf");
  const std::string col = fuse_loops(first, y.name, col_vars, "colf");
  std::vector<std::string> names, rvars;
  for (const auto* f : producers) {
    std::vector<std::string> own;
    for (const auto& r : f->body->rvars) own.push_back(r.name);
    if (own.empty() || (!rvars.empty() && own != rvars)) return;
    rvars = own;
    names.push_back(f->name);
  }
  std::string rvar;
  for (const auto* f : producers) rvar = fuse_loops(first, f->name, rvars, "redf");
  for (int64_t cluster : {2, 4, 8})
    for (int64_t threads : {512, 1024})
      for (bool vector_loads : {false, true})
        out.push_back({"rows over clusters of " + std::to_string(cluster) + " blocks of " + std::to_string(threads) +
                           " threads" + (vector_loads ? ", float4 reductions" : ""),
                       concat_steps({first, cluster_row_normalizer_steps(y.name, row, col, names, rvar, cluster,
                                                                         threads, vector_loads)})});
  // The slices copied into shared memory once: only over one row, column and reduction
  // variable each (a copy shared with producers whose fused reductions decompose their
  // indices apart from the output's fused columns cannot be proven to read inside it).
  std::vector<const FuncDef*> readers = producers;
  readers.push_back(&y);
  const std::string source = input_read_by_all(readers);
  if (source.empty() || !first.empty()) return;
  auto slice_sketch = [&](int64_t cluster, int64_t threads, bool float4) {
    out.push_back({"row slices in shared memory, read once by " + std::to_string(names.size()) +
                       " reductions and the output, over clusters of " + std::to_string(cluster) + " blocks of " +
                       std::to_string(threads) + " threads" +
                       (float4 ? "" : ", 4 values a thread a block's width apart"),
                   concat_steps({first, cluster_slice_normalizer_steps(y.name, row, col, names, rvar, source, cluster,
                                                                       threads, 0, float4)})});
  };
  for (int64_t cluster : {4, 8, 16})
    for (int64_t threads : {128, 256, 512}) slice_sketch(cluster, threads, true);
  // The same slices with a thread's 4 values of each chunk a block's width apart (for rows
  // that are not whole float4s, whose float4 lanes would fall back to 4 accesses 16 bytes
  // apart in each warp).
  for (int64_t cluster : {8, 16})
    for (int64_t threads : {256, 512}) slice_sketch(cluster, threads, false);
  // The same slices of 256 threads with each thread's last 2 float4 in registers and
  // launch bounds of 8 blocks per multiprocessor (32 registers each), so that more blocks
  // fit while they wait for their cluster (8 where a block's shared memory is at most
  // 228 KiB / 8 less the 1 KiB each block reserves: clusters of 8 at softmax's bench size).
  for (int64_t cluster : {4, 8, 16}) {
    json s =
        concat_steps({first, cluster_slice_normalizer_steps(y.name, row, col, names, rvar, source, cluster, 256, 2)});
    s.push_back(schedule_step("launch_bounds", y.name, {{"max_threads", 256}, {"min_blocks", 8}}));
    out.push_back(
        {"row slices over clusters of " + std::to_string(cluster) +
             " blocks of 256 threads, each thread's last 2 float4 in registers, launch bounds of 8 blocks per SM",
         s});
  }
}

// The longest statistic a point-per-thread sketch unrolls fully.
constexpr int64_t kUnrolledStatisticMax = 128;

// Statistics over variables that are not the output's innermost (RMSNorm's sum over
// channels of NCHW): one thread per statistics point, its reductions serial, with the
// output's loops over the reduced variables moved inside that point, so that adjacent
// threads read adjacent addresses for the statistics and again (soon after, from the
// caches) for the output, in one kernel. Only where every statistic has the same points,
// each reduces at most 4096 elements, and the points fill the machine one per thread.
void point_per_thread_sketches(std::vector<Sketch>& out, const Problem& p, const FuncDef& y,
                               const std::vector<const FuncDef*>& producers) {
  if (producers.empty()) return;
  const std::vector<std::string>& points = producers.front()->vars;
  const SizeBindings& bench = p.size("bench");
  for (const auto* f : producers)
    if (f->vars != points || f->is_scan() || reduction_extent(*f, bench) > 4096) return;
  std::vector<std::string> kept, inner;  // the output's loops over the points, and the rest
  double count = 1;
  for (size_t i = 0; i < y.vars.size(); ++i) {
    const bool at_point = std::find(points.begin(), points.end(), y.vars[i]) != points.end();
    (at_point ? kept : inner).push_back(y.vars[i]);
    if (at_point) count *= static_cast<double>(eval_int(y.extents[i], bench));
  }
  if (kept != points || inner.empty() || count < kMachineThreads) return;
  std::vector<std::string> order = kept;
  order.insert(order.end(), inner.begin(), inner.end());
  std::string names;
  int64_t longest = 0;  // the longest statistic's elements: only short ones are unrolled
  for (const auto* f : producers) {
    names += (names.empty() ? "" : " and ") + f->name;
    longest = std::max(longest, reduction_extent(*f, bench));
  }
  for (int64_t threads : {128, 256})
    for (bool unrolled : {false, true}) {
      if (unrolled && longest > kUnrolledStatisticMax) continue;
      json s = json::array();
      s.push_back(schedule_step("reorder", y.name, {{"loops", order}}));
      const std::string flat = fuse_loops(s, y.name, kept, "pt");
      s.push_back(
          schedule_step("split", y.name, {{"loop", flat}, {"factor", threads}, {"outer", "ptb"}, {"inner", "ptt"}}));
      s.push_back(schedule_step("bind", y.name, {{"loop", "ptb"}, {"axis", "blockIdx.x"}}));
      s.push_back(schedule_step("bind", y.name, {{"loop", "ptt"}, {"axis", "threadIdx.x"}}));
      std::set<std::string> done = {y.name};
      for (const auto* f : producers) {
        s.push_back(schedule_step("compute_at", f->name, {{"consumer", y.name}, {"loop", "ptt"}}));
        if (unrolled)
          for (const auto& r : reduction_var_names(*f)) s.push_back(schedule_step("unroll", f->name, {{"loop", r}}));
        done.insert(f->name);
      }
      schedule_rest(s, p, done, threads);
      out.push_back({"one thread per point of " + names + ", reduced serially" + (unrolled ? " (unrolled)" : "") +
                         " and fused into " + y.name + " with its loop over the rest inside, " +
                         std::to_string(threads) + " threads per block",
                     s});
    }
}

}  // namespace

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
  // The statistics on grids of their own (reduction_grid: a cluster of blocks per point
  // where there are few long ones), then the output as a flat grid that reads them.
  for (int64_t v : {1, 4}) {
    json s = json::array();
    if (v > 1)
      pointwise_grid(s, p, *y, 256);
    else
      flat_grid(s, *y, 256, 1);
    schedule_rest(s, p, {y->name}, 256);
    const std::string four = float4_rows(p, *y) ? "4 contiguous outputs (float4)" : "4 outputs a block's width apart";
    out.push_back({"statistics on grids of their own, then one thread per " + (v > 1 ? four : std::string("output")) +
                       " of " + y->name,
                   s});
  }
  point_per_thread_sketches(out, p, *y, producers);
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

}  // namespace cusched::search
