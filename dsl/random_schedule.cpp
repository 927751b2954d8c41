#include "dsl/random_schedule.h"

#include <algorithm>

#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/schedule.h"
#include "dsl/step_builder.h"
#include "dsl/sum_with_variance.h"

namespace cusched {
namespace {

// `steps` made to pass the whole-schedule legality: the step that each broken rule
// names is dropped (with the later steps that no longer apply) until none is broken.
nlohmann::json with_whole_schedule_legality(const ScheduleContext& ctx, nlohmann::json steps) {
  for (size_t round = 0; round <= steps.size(); ++round) {
    Schedule s(ctx);
    for (const auto& step : steps) {
      try {
        s.apply(step);
      } catch (const UserError&) {}
    }
    steps = s.to_json();
    try {
      s.check_legality();
      return steps;
    } catch (const UserError& e) {
      if (e.error().step < 0) return nlohmann::json::array();
      steps.erase(steps.begin() + e.error().step);
    }
  }
  return nlohmann::json::array();
}

class Generator {
 public:
  Generator(const ScheduleContext& ctx, std::mt19937_64& rng) : s_(ctx), rng_(rng), layout_rng_(rng), presum_rng_(rng) {
    layout_rng_.discard(1 << 16);
    presum_rng_.discard(1 << 17);
  }

  nlohmann::json run() {
    presum_sums();
    std::vector<std::string> order;
    for (const auto& f : s_.state().stages) order.push_back(f->name);
    std::reverse(order.begin(), order.end());  // consumers before producers
    for (const auto& name : order) relayout_an_input(name);
    for (const auto& name : order) schedule_stage(name);
    return with_whole_schedule_legality(s_.state().ctx, s_.to_json());
  }

 private:
  Schedule s_;
  std::mt19937_64& rng_;
  // The copies' layouts come from a stream of their own (a copy of rng_ far ahead), so that
  // drawing them leaves the other draws, seed for seed, as they were.
  std::mt19937_64 layout_rng_;
  // Whether a sum goes through its contraction (presum), from a stream of its own too.
  std::mt19937_64 presum_rng_;

  // Sometimes a stage that sums a contraction's output takes the sum into the operand first
  // (presum); the new stages are scheduled like any other.
  void presum_sums() {
    std::vector<std::string> sums;
    for (const auto& f : s_.state().stages)
      if (f->is_reduction() && f->body->reduce_op == ReduceOp::Sum) sums.push_back(f->name);
    for (const auto& name : sums)
      if (std::uniform_real_distribution<double>(0, 1)(presum_rng_) < 0.3)
        try_step({{"op", "presum"}, {"stage", name}, {"name", fresh(name + "_presum")}});
  }

  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  // A shared copy's layout: usually the source's order, sometimes one of the input's
  // dimensions laid out innermost (cache_read innermost).
  int64_t innermost(const std::string& input) {
    const TensorDef* in = s_.state().ctx.pipeline.find_input(input);
    if (!in || in->shape.empty() || std::uniform_real_distribution<double>(0, 1)(layout_rng_) >= 0.25) return -1;
    return std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(in->shape.size()) - 1)(layout_rng_);
  }
  // Sometimes the stage reads one of its inputs through a copy with the dimensions in a
  // random order (relayout; the copy stays at root, unscheduled). Drawn from layout_rng_.
  void relayout_an_input(const std::string& stage) {
    if (std::uniform_real_distribution<double>(0, 1)(layout_rng_) >= 0.1) return;
    std::vector<const TensorDef*> read;
    for (const auto& in : s_.state().ctx.pipeline.inputs())
      if (loads_from(s_.state().stage_def(stage)->body, in->name)) read.push_back(in.get());
    if (read.empty()) return;
    const TensorDef* in = read[std::uniform_int_distribution<size_t>(0, read.size() - 1)(layout_rng_)];
    std::vector<int64_t> order(in->shape.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int64_t>(d);
    std::shuffle(order.begin(), order.end(), layout_rng_);
    try_step({{"op", "relayout"},
              {"stage", stage},
              {"source", in->name},
              {"order", order},
              {"name", fresh(in->name + "_" + stage + "_rl")}});
  }
  template <typename T>
  T pick(const std::vector<T>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng_)];
  }
  bool try_step(const nlohmann::json& step) {
    try {
      s_.apply(step);
      return true;
    } catch (const UserError&) {
      return false;
    }
  }
  const StageSchedule& st(const std::string& n) { return s_.state().stage(n); }
  std::vector<std::string> loops(const std::string& n, bool reduction) {
    std::vector<std::string> out;
    for (const auto& l : st(n).order)
      if (st(n).loops.at(l).reduction == reduction) out.push_back(l);
    return out;
  }
  int64_t extent(const std::string& n, const std::string& l) { return st(n).loops.at(l).extent; }
  int64_t factor_up_to(int64_t max) {
    std::vector<int64_t> f;
    for (int64_t v : {1, 2, 3, 4, 8, 16, 32, 64, 128, 256})
      if (v <= std::max<int64_t>(1, max)) f.push_back(v);
    return pick(f);
  }
  std::string fresh(const std::string& base) { return base + std::to_string(counter_++); }
  int counter_ = 0;

  // The extent of the host's threadIdx.x loop when `stage` is computed at a block-level loop.
  int64_t host_threads(const std::string& host) {
    for (const auto& [name, l] : st(host).loops)
      if (l.axis == GpuAxis::ThreadX) return l.extent;
    return 0;
  }

  void schedule_stage(const std::string& name) {
    const FuncDef* f = s_.state().stage_def(name);
    if (!f) return;
    bool output = s_.state().is_output(name);
    bool reduction = f->is_reduction();
    // A pointwise output folded into the final store of the reduction it reads (legal
    // only when it reads that one alone, at its own point).
    if (output && !reduction && !f->is_scan() && chance(0.3) && try_step(schedule_step("fuse_epilogue", name))) return;
    // A sum stored by the kernel of the variance of the same values (legal only where
    // that variance is a root kernel that runs before every reader of the sum); drawn only
    // where a partner exists, so that other pipelines' draws stay as they were.
    if (const std::string q = reduction ? variance_partner(s_.state(), name) : "";
        !q.empty() && chance(0.5) && try_step(schedule_step("sum_with_variance", name, {{"variance", q}})))
      return;
    if (!output) {
      auto consumers = s_.state().consumers_of(name);
      double r = std::uniform_real_distribution<double>(0, 1)(rng_);
      if (!reduction && r < 0.3 && try_step(schedule_step("compute_inline", name))) return;
      if (r < 0.65 && !consumers.empty()) {
        std::string host = pick(consumers);
        const auto& hs = st(host);
        if (hs.location != ComputeLocation::Inline && !hs.order.empty()) {
          // A block-level loop of the host (its block loops, or the first loop if it has
          // none) that encloses every other consumer computed inside the host.
          std::vector<std::string> sites;
          int limit = static_cast<int>(hs.order.size());
          bool visible = true;
          for (const auto& c : consumers) {
            if (c == host) continue;
            const auto& cs = st(c);
            if (cs.location == ComputeLocation::At && cs.at_stage == host)
              limit = std::min(limit, hs.position(cs.at_loop));
            else
              visible = false;
          }
          for (int q = 0; visible && q <= limit && q < static_cast<int>(hs.order.size()); ++q) {
            sites.push_back(hs.order[q]);
            if (!is_block_axis(hs.loops.at(hs.order[q]).axis)) break;
          }
          std::string loop = sites.empty() ? "" : pick(sites);
          if (!sites.empty() && try_step(schedule_step("compute_at", name, {{"consumer", host}, {"loop", loop}}))) {
            schedule_inner(name, host, loop);
            return;
          }
        }
      }
    }
    schedule_root(name);
  }

  // A stage computed at a block-level loop of `host`: spread over the host's threads.
  void schedule_inner(const std::string& name, const std::string& host, const std::string& loop) {
    int64_t t = host_threads(host);
    bool block_level = is_block_axis(st(host).loops.at(loop).axis) || st(host).position(loop) == 0;
    if (t <= 0 || !block_level) return;  // serial in each thread
    const FuncDef* f = s_.state().stage_def(name);
    if (f->is_reduction()) {
      auto red = loops(name, true);
      std::string k = red.back();
      std::string o = fresh(k + "o"), i = fresh(k + "t");
      if (try_step(schedule_step("split", name, {{"loop", k}, {"factor", t}, {"outer", o}, {"inner", i}})))
        try_step(schedule_step("cross_thread_reduce", name,
                               {{"loop", i}, {"kind", t <= 32 && (t & (t - 1)) == 0 ? "warp" : "block"}}));
    } else {
      auto pure = loops(name, false);
      std::string p = pure.back();
      std::string o = fresh(p + "o"), i = fresh(p + "t");
      if (try_step(schedule_step("split", name, {{"loop", p}, {"factor", t}, {"outer", o}, {"inner", i}})))
        try_step(schedule_step("bind", name, {{"loop", i}, {"axis", "threadIdx.x"}}));
    }
  }

  // Warpgroup tensor-core tiles (m64nNk8; m64nNk16 where both factors are bf16 or f16
  // tensors): the factor read along k in memory (its last index is the reduction
  // variable) varies with n and is staged K-major with the 128-byte swizzle (rows of 128
  // bytes of k); the other factor varies with m and is loaded into registers, sometimes
  // from a padded shared copy; one or two warpgroups on threadIdx.y, and sometimes a
  // pipeline (3 or more deep keeps a k-step in flight).
  bool wgmma_tile(const std::string& name, const std::vector<std::string>& pure, const std::string& k) {
    const auto [x, y] = *s_.state().stage_def(name)->product_loads();
    const std::string i = pure[pure.size() - 2], j = pure.back();
    auto along_k = [&](const Expr& load) {
      return !load->args.empty() && load->args.back()->op == ExprOp::Var && load->args.back()->name == k;
    };
    // The n factor: along k and varying with exactly one of the tile's loops.
    Expr nf, mf;
    std::string m, n;
    for (const auto& [cand, other] : {std::pair<Expr, Expr>{x, y}, std::pair<Expr, Expr>{y, x}}) {
      if (nf.defined() || !along_k(cand)) continue;
      if (mentions_var(cand, j) && !mentions_var(cand, i))
        nf = cand, mf = other, n = j, m = i;
      else if (mentions_var(cand, i) && !mentions_var(cand, j))
        nf = cand, mf = other, n = i, m = j;
    }
    if (!nf.defined()) return false;
    const DType t = nf.type();
    const bool k16 = (t == DType::bf16 || t == DType::f16) && mf.type() == t;
    const int64_t warpgroups = pick(std::vector<int64_t>{1, 2}), bn = pick(std::vector<int64_t>{8, 16, 32, 64});
    std::string no = fresh(n + "o"), ni = fresh(n + "i"), mo = fresh(m + "o"), mt = fresh(m + "t"), mw = fresh(m + "w"),
                mi = fresh(m + "i"), ko = fresh(k + "o"), ki = fresh(k + "i");
    std::vector<std::string> order;
    if (pure.size() == 3) order.push_back(pure[0]);
    for (const auto& l : {no, mo, ko, mw, mi, ni, ki}) order.push_back(l);
    bool ok = try_step(schedule_step("split", name, {{"loop", n}, {"factor", bn}, {"outer", no}, {"inner", ni}})) &&
              try_step(schedule_step("split", name,
                                     {{"loop", m}, {"factor", 64 * warpgroups}, {"outer", mo}, {"inner", mt}})) &&
              try_step(schedule_step("split", name, {{"loop", mt}, {"factor", 64}, {"outer", mw}, {"inner", mi}})) &&
              try_step(schedule_step("split", name,
                                     {{"loop", k}, {"factor", k16 ? 64 : 32}, {"outer", ko}, {"inner", ki}})) &&
              try_step(schedule_step("reorder", name, {{"loops", order}})) &&
              try_step(schedule_step("bind", name, {{"loop", no}, {"axis", "blockIdx.y"}})) &&
              try_step(schedule_step("bind", name, {{"loop", mo}, {"axis", "blockIdx.x"}})) &&
              try_step(schedule_step("bind", name, {{"loop", mw}, {"axis", "threadIdx.y"}})) &&
              try_step(schedule_step("cache_read", name,
                                     {{"source", nf->name},
                                      {"scope", "shared"},
                                      {"at", ko},
                                      {"swizzle", true},
                                      {"name", fresh(nf->name + "_kmajor")}}));
    if (!ok) return false;
    const bool staged_m = chance(0.7) && try_step(schedule_step("cache_read", name,
                                                                {{"source", mf->name},
                                                                 {"scope", "shared"},
                                                                 {"at", ko},
                                                                 {"pad", pick(std::vector<int>{0, 4, 8})},
                                                                 {"name", fresh(mf->name + "_tile")}}));
    if (!try_step(
            schedule_step("tensor_core", name,
                          {{"shape", k16 ? "m64nNk16" : "m64nNk8"}, {"precision", k16 ? dtype_name(t) : "tf32"}})))
      return false;
    if (pure.size() == 3) try_step(schedule_step("bind", name, {{"loop", pure[0]}, {"axis", "blockIdx.z"}}));
    if (staged_m && chance(0.6))
      try_step(schedule_step(
          "pipeline", name,
          {{"loop", ko}, {"depth", pick(std::vector<int>{2, 3, 4})}, {"engine", pick(copy_engine_names())}}));
    return true;
  }

  // Tensor-core tiles: sometimes warpgroup tiles (wgmma_tile); otherwise a block tile of
  // its last two pure loops, warps on threadIdx.z / y, K in steps, optionally staged in
  // shared memory, then tensor_core (mma.sync), and sometimes cache_write scope shared.
  bool tensor_core_tile(const std::string& name) {
    auto pure = loops(name, false), red = loops(name, true);
    if (pure.size() < 2 || red.size() != 1) return false;
    if (chance(0.4)) return wgmma_tile(name, pure, red[0]);
    std::string i = pure[pure.size() - 2], j = pure.back(), k = red[0];
    int64_t bm = pick(std::vector<int64_t>{16, 32, 64}), bn = pick(std::vector<int64_t>{8, 16, 32, 64});
    int64_t wm = bm > 16 && chance(0.5) ? bm / 2 : bm, wn = bn > 8 && chance(0.5) ? bn / 2 : bn;
    int64_t bk = pick(std::vector<int64_t>{8, 16, 32});
    std::string io = fresh(i + "o"), ii = fresh(i + "i"), jo = fresh(j + "o"), ji = fresh(j + "i"), iw = fresh(i + "w"),
                im = fresh(i + "m"), jw = fresh(j + "w"), jn = fresh(j + "n"), ko = fresh(k + "o"), ki = fresh(k + "i");
    bool ok = try_step(schedule_step("split", name, {{"loop", i}, {"factor", bm}, {"outer", io}, {"inner", ii}})) &&
              try_step(schedule_step("split", name, {{"loop", j}, {"factor", bn}, {"outer", jo}, {"inner", ji}})) &&
              try_step(schedule_step("split", name, {{"loop", ii}, {"factor", wm}, {"outer", iw}, {"inner", im}})) &&
              try_step(schedule_step("split", name, {{"loop", ji}, {"factor", wn}, {"outer", jw}, {"inner", jn}})) &&
              try_step(schedule_step("split", name, {{"loop", k}, {"factor", bk}, {"outer", ko}, {"inner", ki}})) &&
              try_step(schedule_step("reorder", name, {{"loops", {io, jo, ko, iw, jw, im, jn, ki}}})) &&
              try_step(schedule_step("bind", name, {{"loop", io}, {"axis", "blockIdx.y"}})) &&
              try_step(schedule_step("bind", name, {{"loop", jo}, {"axis", "blockIdx.x"}})) &&
              try_step(schedule_step("bind", name, {{"loop", iw}, {"axis", "threadIdx.z"}})) &&
              try_step(schedule_step("bind", name, {{"loop", jw}, {"axis", "threadIdx.y"}}));
    if (!ok) return false;
    if (pure.size() == 3) try_step(schedule_step("bind", name, {{"loop", pure[0]}, {"axis", "blockIdx.z"}}));
    std::vector<std::string> sources;  // copied: each applied step replaces the state
    for (const auto& in : s_.state().ctx.pipeline.inputs()) sources.push_back(in->name);
    for (const auto& src : sources)
      if (chance(0.5))
        try_step(schedule_step("cache_read", name,
                               {{"source", src},
                                {"scope", "shared"},
                                {"at", ko},
                                {"pad", pick(std::vector<int>{0, 4, 8})},
                                {"innermost", innermost(src)},
                                {"name", fresh(src + "_tile")}}));
    if (!try_step(
            schedule_step("tensor_core", name,
                          {{"shape", "m16n8k8"}, {"precision", pick(std::vector<std::string>{"tf32", "3xtf32"})}})))
      return false;
    // Sometimes the accumulators go out through a shared tile of the block's output.
    if (chance(0.3)) try_step(schedule_step("cache_write", name, {{"scope", "shared"}}));
    return true;
  }

  void schedule_root(const std::string& name) {
    const FuncDef* f = s_.state().stage_def(name);
    bool reduction = f->is_reduction();
    if (f->is_sum_of_load_products() && f->body->rvars.size() == 1 && loops(name, false).size() >= 2 &&
        loops(name, false).size() <= 3 && chance(0.3) && tensor_core_tile(name))
      return;
    auto pure = loops(name, false);
    if (pure.size() >= 2 && chance(0.3)) {
      std::string fused = fresh("f");
      if (try_step(schedule_step("fuse", name, {{"outer", pure[0]}, {"inner", pure[1]}, {"fused", fused}})))
        pure = loops(name, false);
    }
    if (reduction && chance(0.15) && loops(name, true).size() == 1) {
      std::string k = loops(name, true)[0];
      std::string ko = fresh(k + "o"), ki = fresh(k + "i");
      int64_t fk = factor_up_to(extent(name, k) / 2);
      std::string rf = fresh(name + "_rf");
      if (fk > 1 &&
          try_step(schedule_step("split", name, {{"loop", k}, {"factor", fk}, {"outer", ko}, {"inner", ki}})) &&
          try_step(schedule_step("rfactor", name, {{"loop", ko}, {"name", rf}}))) {
        schedule_root(rf);
        pure = loops(name, false);
      }
    }
    bool cross = reduction && chance(0.4);
    std::string first = pure[0];
    if (cross) {
      // One block per outer point, the reduction across its threads, and sometimes
      // across the blocks of a cluster too (which takes the grid's x axis).
      const bool cluster = chance(0.3);
      std::string o = fresh(first + "o"), i = fresh(first + "i");
      if (try_step(
              schedule_step("split", name, {{"loop", first}, {"factor", factor_up_to(4)}, {"outer", o}, {"inner", i}})))
        try_step(schedule_step("bind", name, {{"loop", o}, {"axis", cluster ? "blockIdx.y" : "blockIdx.x"}}));
      auto red = loops(name, true);
      std::string k = red.back();
      int64_t t = pick(std::vector<int64_t>{8, 16, 32, 64, 128});
      std::string ko = fresh(k + "o"), kt = fresh(k + "t");
      if (try_step(schedule_step("split", name, {{"loop", k}, {"factor", t}, {"outer", ko}, {"inner", kt}})) &&
          try_step(schedule_step("cross_thread_reduce", name, {{"loop", kt}, {"kind", t <= 32 ? "warp" : "block"}})) &&
          cluster) {
        const int64_t blocks = pick(std::vector<int64_t>{2, 4}), e = extent(name, ko);
        std::string kc = fresh(k + "c"), kr = fresh(k + "r");
        if (e >= blocks &&
            try_step(schedule_step(
                "split", name, {{"loop", ko}, {"factor", (e + blocks - 1) / blocks}, {"outer", kc}, {"inner", kr}})))
          try_step(schedule_step("cross_thread_reduce", name, {{"loop", kc}, {"kind", "cluster"}}));
      }
    } else {
      int64_t tf = factor_up_to(std::min<int64_t>(256, extent(name, first)));
      std::string o = fresh(first + "o"), i = fresh(first + "i");
      if (try_step(schedule_step("split", name, {{"loop", first}, {"factor", tf}, {"outer", o}, {"inner", i}}))) {
        try_step(schedule_step("bind", name, {{"loop", o}, {"axis", "blockIdx.x"}}));
        try_step(schedule_step("bind", name, {{"loop", i}, {"axis", "threadIdx.x"}}));
      }
      // A register tile: the reduction loop moved outside a small inner pure loop.
      pure = loops(name, false);
      if (reduction && pure.size() >= 3 && chance(0.4)) {
        std::string last = pure.back();
        auto red = loops(name, true);
        std::vector<std::string> order = red;
        order.push_back(last);
        if (try_step(schedule_step("reorder", name, {{"loops", order}})) && extent(name, last) <= 16 && chance(0.5))
          try_step(schedule_step("unroll", name, {{"loop", last}}));
      }
    }
    // Vectorize a short innermost loop (pure, or a reduction whose lanes accumulate in order).
    const auto& order = st(name).order;
    std::string inner = order.back();
    const LoopInfo& li = st(name).loops.at(inner);
    if (li.axis == GpuAxis::None && chance(0.3)) {
      std::string o = fresh(inner + "o"), v = fresh(inner + "v");
      int64_t w = pick(std::vector<int64_t>{2, 4});
      if (try_step(schedule_step("split", name, {{"loop", inner}, {"factor", w}, {"outer", o}, {"inner", v}})))
        try_step(schedule_step("vectorize", name, {{"loop", v}}));
    }
    // Stage an input through shared memory at the last block loop.
    if (chance(0.25)) {
      std::vector<std::string> block_loops;
      for (const auto& l : st(name).order)
        if (is_block_axis(st(name).loops.at(l).axis)) block_loops.push_back(l);
      std::vector<std::string> sources;
      for (const auto& in : s_.state().ctx.pipeline.inputs()) sources.push_back(in->name);
      if (!block_loops.empty() && !sources.empty()) {
        const std::string source = pick(sources);
        try_step(schedule_step("cache_read", name,
                               {{"source", source},
                                {"scope", "shared"},
                                {"at", block_loops.back()},
                                {"pad", pick(std::vector<int>{0, 1, 4})},
                                {"innermost", innermost(source)},
                                {"name", fresh(name + "_staged")}}));
      }
    }
    if (reduction && chance(0.1)) try_step(schedule_step("precision", name, {{"operands", "tf32"}}));
    if (chance(0.1)) try_step(schedule_step("launch_bounds", name, {{"max_threads", 1024}}));
    if (chance(0.1)) try_step(schedule_step("block_raster", name, {{"group", pick(std::vector<int>{2, 3, 8})}}));
    if (chance(0.1) && !s_.state().ctx.pipeline.inputs().empty())
      try_step(schedule_step("l2_hint", name,
                             {{"source", pick(s_.state().ctx.pipeline.inputs())->name},
                              {"policy", pick(std::vector<std::string>{"evict_last", "evict_first", "evict_normal"})},
                              {"percent", pick(std::vector<int>{5, 50, 100})}}));
  }
};

}  // namespace

nlohmann::json random_schedule(const ScheduleContext& ctx, std::mt19937_64& rng) { return Generator(ctx, rng).run(); }

nlohmann::json random_mutation(const nlohmann::json& schedule, std::mt19937_64& rng) {
  nlohmann::json s = schedule;
  auto uni = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  if (s.empty() || uni(8) == 0) {
    s.push_back({{"op", uni(2) ? "frobnicate" : "split"}, {"loop", "nope"}});
    return s;
  }
  size_t i = uni(s.size());
  auto& step = s[i];
  switch (uni(9)) {
    case 0:
      if (step.contains("factor"))
        step["factor"] = uni(2) ? 0 : -4;
      else
        step.erase("op");
      break;
    case 1:
      if (step.contains("loop"))
        step["loop"] = "no_such_loop";
      else
        step["stage"] = "no_such_stage";
      break;
    case 2:
      if (step.contains("axis"))
        step["axis"] = "blockIdx.x";
      else
        step["extra"] = 1;
      break;
    case 3: {
      auto it = step.begin();
      if (it.key() == "op") ++it;
      if (it != step.end()) step.erase(it);
      break;
    }
    case 4:
      if (step.contains("factor"))
        step["factor"] = "eight";
      else
        step["op"] = 7;
      break;
    case 5:
      std::swap(s[i], s[uni(s.size())]);
      break;
    case 6:
      s.push_back(s[i]);
      break;
    case 7:
      if (step.contains("loops") && !step["loops"].empty())
        step["loops"].push_back(step["loops"][0]);
      else
        s.erase(s.begin() + i);
      break;
    default:
      if (step.contains("stage"))
        step["stage"] = "Q";
      else
        step["kind"] = "galaxy";
      break;
  }
  return s;
}

}  // namespace cusched
