#include "tests/dsl/schedule_test_support.h"

#include "problems/problem.h"

namespace cusched::testing {

static ScheduleContext context_of(std::vector<Func> outputs, SizeBindings sizes) {
  ScheduleContext c;
  c.pipeline = Pipeline(std::move(outputs));
  c.sizes = std::move(sizes);
  return c;
}

ScheduleContext vector_add_context(int64_t n) {
  Size N("N");
  Tensor A("A", DType::f32, {N}), B("B", DType::f32, {N});
  Var i("i", N);
  return context_of({compute("C", {i}, A(i) + B(i))}, {{"N", n}});
}

ScheduleContext half_scale_context(int64_t n) {
  Size N("N");
  Tensor X("X", DType::f16, {N});
  Var i("i", N);
  return context_of({compute("H", {i}, X(i) * 2.0)}, {{"N", n}});
}

ScheduleContext pointwise_chain_context(int64_t n) {
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func P = compute("P", {i}, A(i) + 1.0);
  Func T = compute("T", {i}, P(i) * 2.0);
  return context_of({compute("Y", {i}, max(T(i), 0.0))}, {{"N", n}});
}

ScheduleContext shared_producer_context(int64_t n) {
  Size N("N");
  Tensor A("A", DType::f32, {N});
  Var i("i", N);
  Func T = compute("T", {i}, A(i) * 2.0);
  Func U = compute("U", {i}, T(i) + 1.0);
  return context_of({compute("Y", {i}, T(i) * U(i))}, {{"N", n}});
}

ScheduleContext argmax_context(int64_t rows, int64_t cols) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R);
  RVar k("k", D);
  return context_of({compute("I", {i}, argmax(k, X(i, k)))}, {{"R", rows}, {"D", cols}});
}

ScheduleContext variance_context(int64_t rows, int64_t cols) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R);
  RVar k("k", D);
  return context_of({compute("V", {i}, variance(k, X(i, k)))}, {{"R", rows}, {"D", cols}});
}

ScheduleContext matvec_context(int64_t rows, int64_t cols) {
  Size M("M"), K("K");
  Tensor A("A", DType::f32, {M, K}), x("x", DType::f32, {K});
  Var i("i", M);
  RVar k("k", K);
  return context_of({compute("y", {i}, sum(k, A(i, k) * x(k)))}, {{"M", rows}, {"K", cols}});
}

ScheduleContext producer_reduction_context(int64_t rows, int64_t cols) {
  Size M("M"), K("K");
  Tensor A("A", DType::f32, {M, K});
  Var i("i", M), k("k", K);
  RVar r("r", K);
  Func P = compute("P", {i, k}, A(i, k) * 2.0);
  return context_of({compute("R", {i}, sum(r, P(i, r)))}, {{"M", rows}, {"K", cols}});
}

ScheduleContext two_rvar_context(int64_t rows, int64_t r, int64_t s) {
  Size R("R"), P("P"), Q("Q");
  Tensor X("X", DType::f32, {R, P, Q});
  Var i("i", R);
  RVar rp("r", P), rq("s", Q);
  return context_of({compute("S", {i}, sum({rp, rq}, X(i, rp, rq)))}, {{"R", rows}, {"P", r}, {"Q", s}});
}

ScheduleContext problem_context(const std::string& problem, bool strict) {
  return find_problem(problem).context("small", strict);
}

static json loop_digest(const LoopInfo& l) {
  return {{"extent", l.extent},
          {"reduction", l.reduction},
          {"axis", gpu_axis_name(l.axis)},
          {"kind", static_cast<int>(l.kind)}};
}

json state_digest(const ScheduleState& st) {
  json out;
  for (const auto& f : st.stages) {
    json extents = json::array();
    for (const auto& e : f->extents) extents.push_back(to_string(e));
    out["stages"].push_back({{"name", f->name},
                             {"vars", f->vars},
                             {"extents", extents},
                             {"body", to_string(f->body)},
                             {"dtype", dtype_name(f->dtype)}});
  }
  for (const auto& [name, s] : st.schedules) {
    json loops = json::array();
    for (const auto& n : s.order) {
      const LoopInfo* l = s.find_loop(n);
      json d = l ? loop_digest(*l) : json("missing");
      d["name"] = n;
      loops.push_back(d);
    }
    json relations = json::array();
    for (const auto& r : s.relations) relations.push_back({r.kind, r.a, r.b, r.c, r.factor});
    json caches = json::array();
    for (const auto& c : s.cache_reads)
      caches.push_back({c.source, c.name, mem_scope_name(c.scope), c.at_loop, c.pad, c.swizzle});
    out["schedules"][name] = {{"loops", loops},
                              {"loop_count", s.loops.size()},
                              {"relations", relations},
                              {"used_names", s.used_names},
                              {"location", static_cast<int>(s.location)},
                              {"at", {s.at_stage, s.at_loop}},
                              {"cache_reads", caches},
                              {"cache_write", s.cache_write_scope ? mem_scope_name(*s.cache_write_scope) : ""},
                              {"cross_thread", {s.cross_thread_loop, s.cross_thread_kind}},
                              {"pipeline", {s.pipeline_loop, s.pipeline_depth, copy_engine_name(s.pipeline_engine)}},
                              {"tensor_core", s.tensor_core_shape},
                              {"precision", precision_name(s.precision)},
                              {"launch_bounds", {s.launch_max_threads, s.launch_min_blocks}},
                              {"raster", s.raster_group}};
  }
  return out;
}

Schedule build(const ScheduleContext& ctx, const json& steps) {
  try {
    Schedule s = Schedule::from_json(ctx, steps);
    expect_replays(s);
    return s;
  } catch (const UserError& e) {
    ADD_FAILURE() << "the schedule should be legal: " << e.error().to_string();
    throw;
  }
}

void expect_replays(const Schedule& s) {
  json steps = s.to_json();
  json digest = state_digest(s.state());
  try {
    Schedule from_json = Schedule::from_json(s.state().ctx, json::parse(steps.dump()));
    EXPECT_EQ(from_json.to_json(), steps) << "JSON replay changed the normalised steps";
    EXPECT_EQ(state_digest(from_json.state()), digest) << "JSON replay changed the state";
    EXPECT_EQ(from_json.hash(), s.hash());
  } catch (const UserError& e) {
    ADD_FAILURE() << "JSON replay failed: " << e.error().to_string();
  }
  try {
    Schedule from_text = Schedule::from_text(s.state().ctx, s.to_text());
    EXPECT_EQ(from_text.to_json(), steps) << "text replay changed the steps; text:\n" << s.to_text();
    EXPECT_EQ(state_digest(from_text.state()), digest) << "text replay changed the state";
  } catch (const UserError& e) {
    ADD_FAILURE() << "text replay failed: " << e.error().to_string() << "\ntext:\n" << s.to_text();
  }
}

static bool is_sentence(const std::string& s) { return !s.empty() && (s.back() == '.' || s.back() == '?'); }

void expect_step_error(const ScheduleContext& ctx, const json& steps, int step, const std::string& op,
                       const std::string& code) {
  ASSERT_TRUE(steps.is_array());
  ASSERT_LT(step, static_cast<int>(steps.size()));
  Schedule s(ctx);
  for (int i = 0; i < step; ++i) {
    try {
      s.apply(steps[i]);
    } catch (const UserError& e) {
      FAIL() << "step " << i << " before the failing one should be legal: " << e.error().to_string();
    }
  }
  expect_replays(s);  // the legal prefix replays like any schedule
  json before_steps = s.to_json();
  json before = state_digest(s.state());
  try {
    s.apply(steps[step]);
    FAIL() << "step " << step << " (" << steps[step].dump() << ") should fail with " << code;
  } catch (const UserError& e) {
    const Error& err = e.error();
    EXPECT_EQ(err.code, code) << err.to_string();
    EXPECT_EQ(err.step, step) << err.to_string();
    EXPECT_EQ(err.op, op) << err.to_string();
    EXPECT_TRUE(is_sentence(err.message)) << "message is not a full sentence: " << err.message;
    EXPECT_TRUE(is_sentence(err.hint)) << "hint is not a full sentence: " << err.hint;
    json j = err.to_json();
    EXPECT_EQ(j["code"], code);
    EXPECT_EQ(j["step"], step);
    if (op.empty()) {
      EXPECT_FALSE(j.contains("op"));
    } else {
      EXPECT_EQ(j["op"], op);
    }
    EXPECT_TRUE(j.contains("message") && j.contains("hint"));
  }
  EXPECT_EQ(s.to_json(), before_steps) << "a failed step must not be recorded";
  EXPECT_EQ(state_digest(s.state()), before) << "a failed step must leave the state unchanged";
  // The whole-schedule entry point reports the same first error.
  ValidationResult r = validate_schedule(ctx, steps);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, code);
  EXPECT_EQ(r.error.step, step);
}

std::vector<std::string> loop_order(const Schedule& s, const std::string& stage) {
  return s.state().stage(stage).order;
}

const LoopInfo& loop(const Schedule& s, const std::string& stage, const std::string& name) {
  const LoopInfo* l = s.state().stage(stage).find_loop(name);
  if (!l) throw std::runtime_error("stage " + stage + " has no loop " + name);
  return *l;
}

}  // namespace cusched::testing
