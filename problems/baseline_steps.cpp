#include "problems/baseline_steps.h"

#include "dsl/step_builder.h"

namespace cusched {

using nlohmann::json;

std::string fuse_loops(json& steps, const std::string& stage, const std::vector<std::string>& loops,
                       const std::string& name) {
  std::string cur = loops.at(0);
  for (size_t n = 1; n < loops.size(); ++n) {
    std::string fused = n + 1 == loops.size() ? name : name + std::to_string(n);
    steps.push_back({{"op", "fuse"}, {"stage", stage}, {"outer", cur}, {"inner", loops[n]}, {"fused", fused}});
    cur = fused;
  }
  return cur;
}

json flat_grid_steps(const std::string& stage, const std::vector<std::string>& loops, int64_t threads, int64_t vector) {
  using N = FlatGridNames;
  json steps = json::array();
  std::string loop = fuse_loops(steps, stage, loops, N::fused);
  if (vector > 1) {
    steps.push_back({{"op", "split"},
                     {"stage", stage},
                     {"loop", loop},
                     {"factor", vector},
                     {"outer", N::vectors},
                     {"inner", N::lanes}});
    loop = N::vectors;
  }
  steps.push_back({{"op", "split"},
                   {"stage", stage},
                   {"loop", loop},
                   {"factor", threads},
                   {"outer", N::blocks},
                   {"inner", N::threads}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::blocks}, {"axis", "blockIdx.x"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::threads}, {"axis", "threadIdx.x"}});
  if (vector > 1) steps.push_back({{"op", "vectorize"}, {"stage", stage}, {"loop", N::lanes}});
  return steps;
}

json strided_flat_grid_steps(const std::string& stage, const std::vector<std::string>& loops, int64_t threads,
                             int64_t lanes) {
  using N = FlatGridNames;
  json steps = json::array();
  std::string loop = fuse_loops(steps, stage, loops, N::fused);
  steps.push_back({{"op", "split"},
                   {"stage", stage},
                   {"loop", loop},
                   {"factor", threads * lanes},
                   {"outer", N::blocks},
                   {"inner", N::chunk}});
  steps.push_back({{"op", "split"},
                   {"stage", stage},
                   {"loop", N::chunk},
                   {"factor", threads},
                   {"outer", N::lanes},
                   {"inner", N::threads}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::blocks}, {"axis", "blockIdx.x"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::threads}, {"axis", "threadIdx.x"}});
  steps.push_back({{"op", "unroll"}, {"stage", stage}, {"loop", N::lanes}, {"max_extent", lanes}});
  return steps;
}

json cross_thread_reduction_steps(const std::string& stage, const std::vector<std::string>& rvars, int64_t threads) {
  json steps = json::array();
  std::string k = fuse_loops(steps, stage, rvars, "red");
  steps.push_back({{"op", "split"},
                   {"stage", stage},
                   {"loop", k},
                   {"factor", threads},
                   {"outer", "red_serial"},
                   {"inner", "red_thread"}});
  steps.push_back({{"op", "cross_thread_reduce"},
                   {"stage", stage},
                   {"loop", "red_thread"},
                   {"kind", threads <= 32 ? "warp" : "block"}});
  return steps;
}

json block_per_point_steps(const std::string& stage, const std::vector<std::string>& vars,
                           const std::vector<std::string>& rvars, int64_t threads) {
  json steps = json::array();
  if (!vars.empty()) {
    const std::string points = fuse_loops(steps, stage, vars, FlatGridNames::fused);
    steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", points}, {"axis", "blockIdx.x"}});
  }
  for (auto& s : cross_thread_reduction_steps(stage, rvars, threads)) steps.push_back(std::move(s));
  return steps;
}

namespace {

// The pure loops other than `scan` (a scan stage's loops start with them, `scan` last).
std::vector<std::string> loops_around_scan(const std::vector<std::string>& vars, const std::string& scan) {
  std::vector<std::string> others;
  for (const auto& v : vars)
    if (v != scan) others.push_back(v);
  return others;
}

}  // namespace

json serial_scan_steps(const std::string& stage, const std::vector<std::string>& vars, const std::string& scan,
                       int64_t threads) {
  json steps = json::array();
  std::vector<std::string> others = loops_around_scan(vars, scan);
  if (!others.empty())
    for (auto& s : flat_grid_steps(stage, others, threads)) steps.push_back(std::move(s));
  return steps;
}

json block_scan_steps(const std::string& stage, const std::vector<std::string>& vars, const std::string& scan,
                      int64_t threads, int64_t items, int64_t vector) {
  json steps = json::array();
  std::vector<std::string> others = loops_around_scan(vars, scan);
  if (!others.empty()) {
    const std::string lines = fuse_loops(steps, stage, others, FlatGridNames::fused);
    steps.push_back(schedule_step("bind", stage, {{"loop", lines}, {"axis", "blockIdx.x"}}));
  }
  std::string loop = scan;
  if (vector > 1) {
    steps.push_back(schedule_step(
        "split", stage, {{"loop", loop}, {"factor", vector}, {"outer", "scan_vector"}, {"inner", "scan_lane"}}));
    loop = "scan_vector";
  }
  steps.push_back(schedule_step("split", stage,
                                {{"loop", loop}, {"factor", items}, {"outer", "scan_run"}, {"inner", "scan_item"}}));
  steps.push_back(schedule_step(
      "split", stage, {{"loop", "scan_run"}, {"factor", threads}, {"outer", "scan_tile"}, {"inner", "scan_thread"}}));
  steps.push_back(schedule_step("cross_thread_scan", stage, {{"loop", "scan_thread"}}));
  if (items > 1) steps.push_back(schedule_step("unroll", stage, {{"loop", "scan_item"}}));
  if (vector > 1) steps.push_back(schedule_step("vectorize", stage, {{"loop", "scan_lane"}}));
  return steps;
}

json tiled_grid_steps(const std::string& stage, const std::string& i, const std::string& j, const std::string& batch) {
  json steps = json::array();
  steps.push_back(schedule_step("tile", stage, {{"x", i}, {"y", j}, {"x_factor", 16}, {"y_factor", 16}}));
  if (!batch.empty()) steps.push_back(schedule_step("bind", stage, {{"loop", batch}, {"axis", "blockIdx.z"}}));
  steps.push_back(schedule_step("bind", stage, {{"loop", i + "o"}, {"axis", "blockIdx.y"}}));
  steps.push_back(schedule_step("bind", stage, {{"loop", j + "o"}, {"axis", "blockIdx.x"}}));
  steps.push_back(schedule_step("bind", stage, {{"loop", i + "i"}, {"axis", "threadIdx.y"}}));
  steps.push_back(schedule_step("bind", stage, {{"loop", j + "i"}, {"axis", "threadIdx.x"}}));
  return steps;
}

json conv_row_implicit_gemm_steps(const std::string& stage, int64_t depth) {
  json steps = json::parse(R"([
    {"op": "split", "loop": "ow", "factor": 128, "outer": "owo", "inner": "owi"},
    {"op": "split", "loop": "owi", "factor": 64, "outer": "oww", "inner": "own"},
    {"op": "split", "loop": "o", "factor": 32, "outer": "o_w", "inner": "om"},
    {"op": "split", "loop": "rc", "factor": 16, "outer": "rco", "inner": "rci"},
    {"op": "reorder", "loops": ["n", "oh", "owo", "rco", "kh", "kw", "o_w", "oww", "om", "own", "rci"]},
    {"op": "bind", "loop": "n", "axis": "blockIdx.z"},
    {"op": "bind", "loop": "oh", "axis": "blockIdx.y"},
    {"op": "bind", "loop": "owo", "axis": "blockIdx.x"},
    {"op": "bind", "loop": "o_w", "axis": "threadIdx.z"},
    {"op": "bind", "loop": "oww", "axis": "threadIdx.y"},
    {"op": "cache_read", "source": "X", "scope": "shared", "at": "kw", "pad": 8},
    {"op": "cache_read", "source": "weight", "scope": "shared", "at": "kw", "pad": 0},
    {"op": "tensor_core", "shape": "m16n8k8", "precision": "tf32"},
    {"op": "launch_bounds", "max_threads": 256, "min_blocks": 2}
  ])");
  steps.push_back(schedule_step("pipeline", stage, {{"loop", "kw"}, {"depth", depth}}));
  for (auto& s : steps) s["stage"] = stage;
  return steps;
}

json fast_math_steps(const std::vector<std::string>& stages) {
  json s = json::array();
  for (const auto& st : stages) s.push_back(schedule_step("precision", st, {{"operands", "f32"}, {"math", "fast"}}));
  return s;
}

json concat_steps(std::initializer_list<json> parts) {
  json out = json::array();
  for (const auto& p : parts)
    for (const auto& s : p) out.push_back(s);
  return out;
}

json with_folded_epilogue(const json& steps, const std::string& stage) {
  json out = json::array();
  for (const auto& s : steps)
    if (s.value("stage", "") != stage) out.push_back(s);
  out.push_back(schedule_step("fuse_epilogue", stage));
  return out;
}

nlohmann::json vector4_grid_steps(const std::string& stage, const std::string& b, const std::string& c,
                                  const std::string& h, const std::string& w) {
  return nlohmann::json::array(
      {schedule_step("split", stage, {{"loop", w}, {"factor", 4}, {"outer", "wo"}, {"inner", "wv"}}),
       schedule_step("split", stage, {{"loop", h}, {"factor", 4}, {"outer", "ho"}, {"inner", "hi"}}),
       schedule_step("bind", stage, {{"loop", b}, {"axis", "blockIdx.z"}}),
       schedule_step("bind", stage, {{"loop", c}, {"axis", "blockIdx.y"}}),
       schedule_step("bind", stage, {{"loop", "ho"}, {"axis", "blockIdx.x"}}),
       schedule_step("bind", stage, {{"loop", "hi"}, {"axis", "threadIdx.y"}}),
       schedule_step("bind", stage, {{"loop", "wo"}, {"axis", "threadIdx.x"}}),
       schedule_step("vectorize", stage, {{"loop", "wv"}})});
}

nlohmann::json tensor_core_tile_steps(const std::string& stage, const std::string& i, const std::string& j,
                                      const std::string& k, const std::string& a, int a_pad, const std::string& b,
                                      int b_pad, const std::string& batch, TensorCoreTile tile) {
  std::vector<std::string> order;
  if (!batch.empty()) order.push_back(batch);
  for (const char* l : {"io", "jo", "ko", "iw", "jw", "im", "jn", "ki"}) order.push_back(l);
  nlohmann::json s = nlohmann::json::array(
      {schedule_step("tile", stage,
                     {{"x", i},
                      {"y", j},
                      {"x_factor", tile.bm},
                      {"y_factor", tile.bn},
                      {"xo", "io"},
                      {"yo", "jo"},
                      {"xi", "ii"},
                      {"yi", "ji"}}),
       schedule_step("split", stage, {{"loop", "ii"}, {"factor", tile.wm}, {"outer", "iw"}, {"inner", "im"}}),
       schedule_step("split", stage, {{"loop", "ji"}, {"factor", tile.wn}, {"outer", "jw"}, {"inner", "jn"}}),
       schedule_step("split", stage, {{"loop", k}, {"factor", tile.bk}, {"outer", "ko"}, {"inner", "ki"}}),
       schedule_step("reorder", stage, {{"loops", order}}),
       schedule_step("bind", stage, {{"loop", "io"}, {"axis", "blockIdx.y"}}),
       schedule_step("bind", stage, {{"loop", "jo"}, {"axis", "blockIdx.x"}}),
       schedule_step("bind", stage, {{"loop", "iw"}, {"axis", "threadIdx.z"}}),
       schedule_step("bind", stage, {{"loop", "jw"}, {"axis", "threadIdx.y"}}),
       schedule_step("cache_read", stage, {{"source", a}, {"scope", "shared"}, {"at", "ko"}, {"pad", a_pad}}),
       schedule_step("cache_read", stage, {{"source", b}, {"scope", "shared"}, {"at", "ko"}, {"pad", b_pad}}),
       schedule_step("tensor_core", stage, {{"shape", tile.shape}, {"precision", tile.precision}})});
  if (!batch.empty()) s.push_back(schedule_step("bind", stage, {{"loop", batch}, {"axis", "blockIdx.z"}}));
  if (tile.pipeline_depth > 1)
    s.push_back(schedule_step("pipeline", stage, {{"loop", "ko"}, {"depth", tile.pipeline_depth}}));
  return s;
}

nlohmann::json wgmma_tile_steps(const std::string& stage, const std::string& m, const std::string& n,
                                const std::string& k, const std::string& a_source, int a_pad,
                                const std::string& b_source, const std::string& batch, int bn, int warpgroups,
                                int depth, const std::string& precision, const std::string& engine) {
  std::vector<std::string> order;
  if (!batch.empty()) order.push_back(batch);
  for (const char* l : {"no", "mo", "ko", "mw", "mi", "ni", "ki"}) order.push_back(l);
  // A swizzled row is 128 bytes of k: 32 tf32 or 64 bf16 / f16 elements, each k16 instruction a quarter of it.
  const bool k16 = precision == "bf16" || precision == "f16";
  const int k_step = k16 ? 64 : 32;
  nlohmann::json s = nlohmann::json::array(
      {schedule_step("split", stage, {{"loop", n}, {"factor", bn}, {"outer", "no"}, {"inner", "ni"}}),
       schedule_step("split", stage, {{"loop", m}, {"factor", 64 * warpgroups}, {"outer", "mo"}, {"inner", "mt"}}),
       schedule_step("split", stage, {{"loop", "mt"}, {"factor", 64}, {"outer", "mw"}, {"inner", "mi"}}),
       schedule_step("split", stage, {{"loop", k}, {"factor", k_step}, {"outer", "ko"}, {"inner", "ki"}}),
       schedule_step("reorder", stage, {{"loops", order}}),
       schedule_step("bind", stage, {{"loop", "no"}, {"axis", "blockIdx.y"}}),
       schedule_step("bind", stage, {{"loop", "mo"}, {"axis", "blockIdx.x"}}),
       schedule_step("bind", stage, {{"loop", "mw"}, {"axis", "threadIdx.y"}}),
       schedule_step("cache_read", stage, {{"source", b_source}, {"scope", "shared"}, {"at", "ko"}, {"swizzle", true}}),
       schedule_step("cache_read", stage, {{"source", a_source}, {"scope", "shared"}, {"at", "ko"}, {"pad", a_pad}}),
       schedule_step("tensor_core", stage, {{"shape", k16 ? "m64nNk16" : "m64nNk8"}, {"precision", precision}})});
  if (!batch.empty()) s.push_back(schedule_step("bind", stage, {{"loop", batch}, {"axis", "blockIdx.z"}}));
  nlohmann::json pipeline = schedule_step("pipeline", stage, {{"loop", "ko"}, {"depth", depth}});
  if (engine != "cp.async") pipeline["engine"] = engine;  // cp.async is the default
  if (depth > 1) s.push_back(pipeline);
  return s;
}

nlohmann::json linear_wgmma_steps(const std::string& stage) {
  nlohmann::json s = wgmma_tile_steps(stage, "i", "j", "k", "X", 4, "weight");
  s.push_back(schedule_step("launch_bounds", stage, {{"max_threads", 2 * 128}, {"min_blocks", 1}}));
  return s;
}

nlohmann::json row_vector4_grid_steps(const std::string& stage, const std::string& i, const std::string& j,
                                      int threads) {
  return nlohmann::json::array(
      {schedule_step("split", stage, {{"loop", j}, {"factor", 4}, {"outer", j + "o"}, {"inner", j + "v"}}),
       schedule_step("split", stage, {{"loop", j + "o"}, {"factor", threads}, {"outer", j + "b"}, {"inner", j + "t"}}),
       schedule_step("bind", stage, {{"loop", i}, {"axis", "blockIdx.y"}}),
       schedule_step("bind", stage, {{"loop", j + "b"}, {"axis", "blockIdx.x"}}),
       schedule_step("bind", stage, {{"loop", j + "t"}, {"axis", "threadIdx.x"}}),
       schedule_step("vectorize", stage, {{"loop", j + "v"}})});
}

namespace {

// The steps that spread a chunk loop `var` + "q" of 4 * threads values over the block's
// threads (`var` + "t"): a float4 a thread (`var` + "v", vectorized), or 4 values a thread a
// block's width apart (`var` + "p", unrolled around the thread loop), whose warps read
// contiguous words also where the values are not whole float4s.
nlohmann::json chunk_over_threads(const std::string& stage, const std::string& var, int64_t threads, bool float4) {
  if (float4)
    return nlohmann::json::array(
        {schedule_step("split", stage,
                       {{"loop", var + "q"}, {"factor", 4}, {"outer", var + "t"}, {"inner", var + "v"}}),
         schedule_step("vectorize", stage, {{"loop", var + "v"}})});
  return nlohmann::json::array(
      {schedule_step("split", stage,
                     {{"loop", var + "q"}, {"factor", threads}, {"outer", var + "p"}, {"inner", var + "t"}}),
       schedule_step("unroll", stage, {{"loop", var + "p"}})});
}

}  // namespace

nlohmann::json cluster_row_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                            const std::vector<std::string>& reductions, const std::string& rvar,
                                            int64_t cluster, int64_t threads, bool vector_loads) {
  const int64_t chunk = 4 * threads;
  nlohmann::json s = nlohmann::json::array(
      {schedule_step("split", out,
                     {{"loop", col}, {"factor", cluster * chunk}, {"outer", col + "o"}, {"inner", col + "r"}}),
       schedule_step("split", out,
                     {{"loop", col + "r"}, {"factor", chunk}, {"outer", col + "c"}, {"inner", col + "q"}}),
       schedule_step("split", out, {{"loop", col + "q"}, {"factor", 4}, {"outer", col + "t"}, {"inner", col + "v"}}),
       schedule_step("reorder", out, {{"loops", {col + "c", col + "o"}}}),
       schedule_step("bind", out, {{"loop", row}, {"axis", "blockIdx.y"}}),
       schedule_step("bind", out, {{"loop", col + "c"}, {"axis", "cluster.x"}}),
       schedule_step("bind", out, {{"loop", col + "t"}, {"axis", "threadIdx.x"}}),
       schedule_step("vectorize", out, {{"loop", col + "v"}})});
  for (const auto& r : reductions) s.push_back(schedule_step("compute_at", r, {{"consumer", out}, {"loop", row}}));
  for (const auto& r : reductions) {
    s.push_back(schedule_step(
        "split", r, {{"loop", rvar}, {"factor", cluster * chunk}, {"outer", rvar + "o"}, {"inner", rvar + "r"}}));
    s.push_back(schedule_step("split", r,
                              {{"loop", rvar + "r"}, {"factor", chunk}, {"outer", rvar + "c"}, {"inner", rvar + "q"}}));
    for (const auto& step : chunk_over_threads(r, rvar, threads, vector_loads)) s.push_back(step);
    s.push_back(schedule_step("cross_thread_reduce", r, {{"loop", rvar + "t"}, {"kind", "block"}}));
    s.push_back(schedule_step("cross_thread_reduce", r, {{"loop", rvar + "c"}, {"kind", "cluster"}}));
  }
  return s;
}

nlohmann::json cluster_slice_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                              const std::vector<std::string>& reductions, const std::string& rvar,
                                              const std::string& source, int64_t cluster, int64_t threads,
                                              int64_t registers, bool vector_lanes) {
  // var -> (var c: the cluster's parts) x (var o: chunks of 4 * threads) x the chunk over the threads
  auto slices = [&](const std::string& stage, const std::string& var) {
    return concat_steps(
        {nlohmann::json::array(
             {schedule_step("split", stage,
                            {{"loop", var}, {"parts", cluster}, {"outer", var + "c"}, {"inner", var + "r"}}),
              schedule_step(
                  "split", stage,
                  {{"loop", var + "r"}, {"factor", 4 * threads}, {"outer", var + "o"}, {"inner", var + "q"}})}),
         chunk_over_threads(stage, var, threads, vector_lanes)});
  };
  nlohmann::json s = slices(out, col);
  s.push_back(schedule_step("bind", out, {{"loop", row}, {"axis", "blockIdx.y"}}));
  s.push_back(schedule_step("bind", out, {{"loop", col + "c"}, {"axis", "cluster.x"}}));
  s.push_back(schedule_step("bind", out, {{"loop", col + "t"}, {"axis", "threadIdx.x"}}));
  for (const auto& r : reductions)
    s.push_back(schedule_step("compute_at", r, {{"consumer", out}, {"loop", col + "c"}}));
  for (const auto& r : reductions) {
    for (const auto& step : slices(r, rvar)) s.push_back(step);
    s.push_back(schedule_step("cross_thread_reduce", r, {{"loop", rvar + "t"}, {"kind", "block"}}));
    s.push_back(schedule_step("cross_thread_reduce", r, {{"loop", rvar + "c"}, {"kind", "cluster"}}));
  }
  std::vector<StepArg> copy = {{"source", source}, {"scope", "shared"}, {"at", col + "c"}, {"share", true}};
  if (registers > 0) copy.emplace_back("registers", registers);
  s.push_back(schedule_step("cache_read", out, copy));
  if (registers > 0) {
    s.push_back(schedule_step("unroll", out, {{"loop", col + "o"}}));
    for (const auto& r : reductions) s.push_back(schedule_step("unroll", r, {{"loop", rvar + "o"}}));
  }
  return s;
}

nlohmann::json middle_dim_register_steps(const std::string& stage, const std::string& source, int64_t columns,
                                         int64_t rows) {
  return nlohmann::json::array(
      {schedule_step("split", stage, {{"loop", "j"}, {"factor", columns}, {"outer", "jt"}, {"inner", "jv"}}),
       schedule_step("split", stage, {{"loop", "r"}, {"factor", rows}, {"outer", "ro"}, {"inner", "ru"}}),
       schedule_step("reorder", stage, {{"loops", {"b", "jt", "ro", "ru", "jv"}}}),
       schedule_step("bind", stage, {{"loop", "b"}, {"axis", "blockIdx.x"}}),
       schedule_step("bind", stage, {{"loop", "jt"}, {"axis", "threadIdx.x"}}),
       schedule_step("unroll", stage, {{"loop", "ru"}}), schedule_step("unroll", stage, {{"loop", "jv"}}),
       schedule_step("cache_read", stage, {{"source", source}, {"scope", "register"}, {"at", "ro"}})});
}

}  // namespace cusched
