#include "problems/baseline_steps.h"

namespace cusched {

using nlohmann::json;

std::string fuse_loops(json& steps, const std::string& stage, const std::vector<std::string>& loops, const std::string& name) {
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
    steps.push_back({{"op", "split"}, {"stage", stage}, {"loop", loop}, {"factor", vector}, {"outer", N::vectors}, {"inner", N::lanes}});
    loop = N::vectors;
  }
  steps.push_back({{"op", "split"}, {"stage", stage}, {"loop", loop}, {"factor", threads}, {"outer", N::blocks}, {"inner", N::threads}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::blocks}, {"axis", "blockIdx.x"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", N::threads}, {"axis", "threadIdx.x"}});
  if (vector > 1) steps.push_back({{"op", "vectorize"}, {"stage", stage}, {"loop", N::lanes}});
  return steps;
}

json cross_thread_reduction_steps(const std::string& stage, const std::vector<std::string>& rvars, int64_t threads) {
  json steps = json::array();
  std::string k = fuse_loops(steps, stage, rvars, "red");
  steps.push_back({{"op", "split"}, {"stage", stage}, {"loop", k}, {"factor", threads}, {"outer", "red_serial"}, {"inner", "red_thread"}});
  steps.push_back({{"op", "cross_thread_reduce"}, {"stage", stage}, {"loop", "red_thread"}, {"kind", threads <= 32 ? "warp" : "block"}});
  return steps;
}

json block_per_point_steps(const std::string& stage, const std::vector<std::string>& vars, const std::vector<std::string>& rvars,
                           int64_t threads) {
  json steps = json::array();
  if (!vars.empty()) {
    const std::string points = fuse_loops(steps, stage, vars, FlatGridNames::fused);
    steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", points}, {"axis", "blockIdx.x"}});
  }
  for (auto& s : cross_thread_reduction_steps(stage, rvars, threads)) steps.push_back(std::move(s));
  return steps;
}

json tiled_grid_steps(const std::string& stage, const std::string& i, const std::string& j, const std::string& batch) {
  json steps = json::array();
  steps.push_back({{"op", "tile"}, {"stage", stage}, {"x", i}, {"y", j}, {"x_factor", 16}, {"y_factor", 16}});
  if (!batch.empty()) steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", batch}, {"axis", "blockIdx.z"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", i + "o"}, {"axis", "blockIdx.y"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", j + "o"}, {"axis", "blockIdx.x"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", i + "i"}, {"axis", "threadIdx.y"}});
  steps.push_back({{"op", "bind"}, {"stage", stage}, {"loop", j + "i"}, {"axis", "threadIdx.x"}});
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
  steps.push_back({{"op", "pipeline"}, {"loop", "kw"}, {"depth", depth}});
  for (auto& s : steps) s["stage"] = stage;
  return steps;
}

json fast_math_steps(const std::vector<std::string>& stages) {
  json s = json::array();
  for (const auto& st : stages) s.push_back({{"op", "precision"}, {"stage", st}, {"operands", "f32"}, {"math", "fast"}});
  return s;
}

json concat_steps(std::initializer_list<json> parts) {
  json out = json::array();
  for (const auto& p : parts)
    for (const auto& s : p) out.push_back(s);
  return out;
}

nlohmann::json vector4_grid_steps(const std::string& stage, const std::string& b, const std::string& c,
                                  const std::string& h, const std::string& w) {
  return {{{"op", "split"}, {"stage", stage}, {"loop", w}, {"factor", 4}, {"outer", "wo"}, {"inner", "wv"}},
          {{"op", "split"}, {"stage", stage}, {"loop", h}, {"factor", 4}, {"outer", "ho"}, {"inner", "hi"}},
          {{"op", "bind"}, {"stage", stage}, {"loop", b}, {"axis", "blockIdx.z"}},
          {{"op", "bind"}, {"stage", stage}, {"loop", c}, {"axis", "blockIdx.y"}},
          {{"op", "bind"}, {"stage", stage}, {"loop", "ho"}, {"axis", "blockIdx.x"}},
          {{"op", "bind"}, {"stage", stage}, {"loop", "hi"}, {"axis", "threadIdx.y"}},
          {{"op", "bind"}, {"stage", stage}, {"loop", "wo"}, {"axis", "threadIdx.x"}},
          {{"op", "vectorize"}, {"stage", stage}, {"loop", "wv"}}};
}

nlohmann::json tensor_core_tile_steps(const std::string& stage, const std::string& i, const std::string& j,
                                      const std::string& k, const std::string& a, int a_pad, const std::string& b,
                                      int b_pad, const std::string& batch, TensorCoreTile tile) {
  nlohmann::json order = nlohmann::json::array();
  if (!batch.empty()) order.push_back(batch);
  for (const char* l : {"io", "jo", "ko", "iw", "jw", "im", "jn", "ki"}) order.push_back(l);
  nlohmann::json s = nlohmann::json::array({
      {{"op", "tile"}, {"stage", stage}, {"x", i}, {"y", j}, {"x_factor", tile.bm}, {"y_factor", tile.bn}, {"xo", "io"}, {"yo", "jo"}, {"xi", "ii"}, {"yi", "ji"}},
      {{"op", "split"}, {"stage", stage}, {"loop", "ii"}, {"factor", tile.wm}, {"outer", "iw"}, {"inner", "im"}},
      {{"op", "split"}, {"stage", stage}, {"loop", "ji"}, {"factor", tile.wn}, {"outer", "jw"}, {"inner", "jn"}},
      {{"op", "split"}, {"stage", stage}, {"loop", k}, {"factor", tile.bk}, {"outer", "ko"}, {"inner", "ki"}},
      {{"op", "reorder"}, {"stage", stage}, {"loops", order}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "io"}, {"axis", "blockIdx.y"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "jo"}, {"axis", "blockIdx.x"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "iw"}, {"axis", "threadIdx.z"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "jw"}, {"axis", "threadIdx.y"}},
      {{"op", "cache_read"}, {"stage", stage}, {"source", a}, {"scope", "shared"}, {"at", "ko"}, {"pad", a_pad}},
      {{"op", "cache_read"}, {"stage", stage}, {"source", b}, {"scope", "shared"}, {"at", "ko"}, {"pad", b_pad}},
      {{"op", "tensor_core"}, {"stage", stage}, {"shape", tile.shape}, {"precision", tile.precision}}});
  if (!batch.empty()) s.push_back({{"op", "bind"}, {"stage", stage}, {"loop", batch}, {"axis", "blockIdx.z"}});
  if (tile.pipeline_depth > 1)
    s.push_back({{"op", "pipeline"}, {"stage", stage}, {"loop", "ko"}, {"depth", tile.pipeline_depth}});
  return s;
}

nlohmann::json wgmma_tile_steps(const std::string& stage, const std::string& m, const std::string& n, const std::string& k,
                                const std::string& a_source, int a_pad, const std::string& b_source, const std::string& batch,
                                int bn, int warpgroups, int depth) {
  nlohmann::json order = nlohmann::json::array();
  if (!batch.empty()) order.push_back(batch);
  for (const char* l : {"no", "mo", "ko", "mw", "mi", "ni", "ki"}) order.push_back(l);
  nlohmann::json s = nlohmann::json::array({
      {{"op", "split"}, {"stage", stage}, {"loop", n}, {"factor", bn}, {"outer", "no"}, {"inner", "ni"}},
      {{"op", "split"}, {"stage", stage}, {"loop", m}, {"factor", 64 * warpgroups}, {"outer", "mo"}, {"inner", "mt"}},
      {{"op", "split"}, {"stage", stage}, {"loop", "mt"}, {"factor", 64}, {"outer", "mw"}, {"inner", "mi"}},
      {{"op", "split"}, {"stage", stage}, {"loop", k}, {"factor", 32}, {"outer", "ko"}, {"inner", "ki"}},
      {{"op", "reorder"}, {"stage", stage}, {"loops", order}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "no"}, {"axis", "blockIdx.y"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "mo"}, {"axis", "blockIdx.x"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "mw"}, {"axis", "threadIdx.y"}},
      {{"op", "cache_read"}, {"stage", stage}, {"source", b_source}, {"scope", "shared"}, {"at", "ko"}, {"swizzle", true}},
      {{"op", "cache_read"}, {"stage", stage}, {"source", a_source}, {"scope", "shared"}, {"at", "ko"}, {"pad", a_pad}},
      {{"op", "tensor_core"}, {"stage", stage}, {"shape", "m64nNk8"}, {"precision", "tf32"}}});
  if (!batch.empty()) s.push_back({{"op", "bind"}, {"stage", stage}, {"loop", batch}, {"axis", "blockIdx.z"}});
  if (depth > 1) s.push_back({{"op", "pipeline"}, {"stage", stage}, {"loop", "ko"}, {"depth", depth}});
  return s;
}

nlohmann::json linear_wgmma_steps(const std::string& stage) {
  nlohmann::json s = wgmma_tile_steps(stage, "i", "j", "k", "X", 4, "weight");
  s.push_back({{"op", "launch_bounds"}, {"stage", stage}, {"max_threads", 2 * 128}, {"min_blocks", 1}});
  return s;
}

nlohmann::json row_vector4_grid_steps(const std::string& stage, const std::string& i, const std::string& j, int threads) {
  return nlohmann::json::array({
      {{"op", "split"}, {"stage", stage}, {"loop", j}, {"factor", 4}, {"outer", j + "o"}, {"inner", j + "v"}},
      {{"op", "split"}, {"stage", stage}, {"loop", j + "o"}, {"factor", threads}, {"outer", j + "b"}, {"inner", j + "t"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", i}, {"axis", "blockIdx.y"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", j + "b"}, {"axis", "blockIdx.x"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", j + "t"}, {"axis", "threadIdx.x"}},
      {{"op", "vectorize"}, {"stage", stage}, {"loop", j + "v"}}});
}

nlohmann::json cluster_row_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                            const std::vector<std::string>& reductions, const std::string& rvar,
                                            int64_t cluster, int64_t threads, bool vector_loads) {
  const int64_t chunk = 4 * threads;
  nlohmann::json s = nlohmann::json::array({
      {{"op", "split"}, {"stage", out}, {"loop", col}, {"factor", cluster * chunk}, {"outer", col + "o"}, {"inner", col + "r"}},
      {{"op", "split"}, {"stage", out}, {"loop", col + "r"}, {"factor", chunk}, {"outer", col + "c"}, {"inner", col + "q"}},
      {{"op", "split"}, {"stage", out}, {"loop", col + "q"}, {"factor", 4}, {"outer", col + "t"}, {"inner", col + "v"}},
      {{"op", "reorder"}, {"stage", out}, {"loops", {col + "c", col + "o"}}},
      {{"op", "bind"}, {"stage", out}, {"loop", row}, {"axis", "blockIdx.y"}},
      {{"op", "bind"}, {"stage", out}, {"loop", col + "c"}, {"axis", "cluster.x"}},
      {{"op", "bind"}, {"stage", out}, {"loop", col + "t"}, {"axis", "threadIdx.x"}},
      {{"op", "vectorize"}, {"stage", out}, {"loop", col + "v"}}});
  for (const auto& r : reductions) s.push_back({{"op", "compute_at"}, {"stage", r}, {"consumer", out}, {"loop", row}});
  for (const auto& r : reductions) {
    s.push_back({{"op", "split"}, {"stage", r}, {"loop", rvar}, {"factor", cluster * chunk}, {"outer", rvar + "o"}, {"inner", rvar + "r"}});
    s.push_back({{"op", "split"}, {"stage", r}, {"loop", rvar + "r"}, {"factor", chunk}, {"outer", rvar + "c"}, {"inner", rvar + "q"}});
    if (vector_loads) {
      s.push_back({{"op", "split"}, {"stage", r}, {"loop", rvar + "q"}, {"factor", 4}, {"outer", rvar + "t"}, {"inner", rvar + "v"}});
      s.push_back({{"op", "vectorize"}, {"stage", r}, {"loop", rvar + "v"}});
    } else {
      s.push_back({{"op", "split"}, {"stage", r}, {"loop", rvar + "q"}, {"factor", threads}, {"outer", rvar + "p"}, {"inner", rvar + "t"}});
      s.push_back({{"op", "unroll"}, {"stage", r}, {"loop", rvar + "p"}});
    }
    s.push_back({{"op", "cross_thread_reduce"}, {"stage", r}, {"loop", rvar + "t"}, {"kind", "block"}});
    s.push_back({{"op", "cross_thread_reduce"}, {"stage", r}, {"loop", rvar + "c"}, {"kind", "cluster"}});
  }
  return s;
}

nlohmann::json cluster_slice_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                              const std::vector<std::string>& reductions, const std::string& rvar,
                                              const std::string& source, int64_t cluster, int64_t threads,
                                              int64_t registers) {
  // var -> (var c: the cluster's parts) x (var o: chunks of 4 * threads) x (var t: threads) x (var v: 4 lanes)
  auto slices = [&](const std::string& stage, const std::string& var) {
    return nlohmann::json::array({
        {{"op", "split"}, {"stage", stage}, {"loop", var}, {"parts", cluster}, {"outer", var + "c"}, {"inner", var + "r"}},
        {{"op", "split"}, {"stage", stage}, {"loop", var + "r"}, {"factor", 4 * threads}, {"outer", var + "o"}, {"inner", var + "q"}},
        {{"op", "split"}, {"stage", stage}, {"loop", var + "q"}, {"factor", 4}, {"outer", var + "t"}, {"inner", var + "v"}},
        {{"op", "vectorize"}, {"stage", stage}, {"loop", var + "v"}}});
  };
  nlohmann::json s = slices(out, col);
  s.push_back({{"op", "bind"}, {"stage", out}, {"loop", row}, {"axis", "blockIdx.y"}});
  s.push_back({{"op", "bind"}, {"stage", out}, {"loop", col + "c"}, {"axis", "cluster.x"}});
  s.push_back({{"op", "bind"}, {"stage", out}, {"loop", col + "t"}, {"axis", "threadIdx.x"}});
  for (const auto& r : reductions) s.push_back({{"op", "compute_at"}, {"stage", r}, {"consumer", out}, {"loop", col + "c"}});
  for (const auto& r : reductions) {
    for (const auto& step : slices(r, rvar)) s.push_back(step);
    s.push_back({{"op", "cross_thread_reduce"}, {"stage", r}, {"loop", rvar + "t"}, {"kind", "block"}});
    s.push_back({{"op", "cross_thread_reduce"}, {"stage", r}, {"loop", rvar + "c"}, {"kind", "cluster"}});
  }
  s.push_back({{"op", "cache_read"}, {"stage", out}, {"source", source}, {"scope", "shared"}, {"at", col + "c"}, {"share", true}});
  if (registers > 0) {
    s.back()["registers"] = registers;
    s.push_back({{"op", "unroll"}, {"stage", out}, {"loop", col + "o"}});
    for (const auto& r : reductions) s.push_back({{"op", "unroll"}, {"stage", r}, {"loop", rvar + "o"}});
  }
  return s;
}

nlohmann::json middle_dim_register_steps(const std::string& stage, const std::string& source, int64_t columns, int64_t rows) {
  return nlohmann::json::array({
      {{"op", "split"}, {"stage", stage}, {"loop", "j"}, {"factor", columns}, {"outer", "jt"}, {"inner", "jv"}},
      {{"op", "split"}, {"stage", stage}, {"loop", "r"}, {"factor", rows}, {"outer", "ro"}, {"inner", "ru"}},
      {{"op", "reorder"}, {"stage", stage}, {"loops", {"b", "jt", "ro", "ru", "jv"}}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "b"}, {"axis", "blockIdx.x"}},
      {{"op", "bind"}, {"stage", stage}, {"loop", "jt"}, {"axis", "threadIdx.x"}},
      {{"op", "unroll"}, {"stage", stage}, {"loop", "ru"}},
      {{"op", "unroll"}, {"stage", stage}, {"loop", "jv"}},
      {{"op", "cache_read"}, {"stage", stage}, {"source", source}, {"scope", "register"}, {"at", "ro"}}});
}

}  // namespace cusched
