// Scans in the algorithm language (cumsum, cumprod; reverse, exclusive): the C++ form,
// the text form (printer and parser exact inverses), their errors, and the schedule of
// a scan stage: cross_thread_scan and the whole-schedule rules on scans.
#include <gtest/gtest.h>

#include "dsl/expr_equal.h"
#include "dsl/expr_text.h"
#include "dsl/schedule_legality.h"
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

struct ScanFixture {
  Size R{"R"}, D{"D"};
  Tensor X{"X", DType::f32, {R, D}};
  Tensor M{"M", DType::boolean, {R, D}};
  Var i{"i", R}, j{"j", D};
  ExprScope scope() const {
    ExprScope s;
    s.sizes = {"R", "D"};
    s.tensors = {{"X", X.ptr()}, {"M", M.ptr()}};
    return s;
  }
};

std::string stage_error(const std::string& text, const ExprScope& scope) {
  try {
    stage_from_text(text, scope);
  } catch (const UserError& e) {
    EXPECT_FALSE(e.error().hint.empty()) << text;
    return e.error().code;
  }
  return "";
}

TEST(ScanText, EveryVariantPrintsAndParsesBackIdentically) {
  ScanFixture f;
  Expr x = f.X(f.i, f.j);
  const std::vector<std::pair<Func, std::string>> cases = {
      {compute("Y", {f.i, f.j}, cumsum(f.j, x)), "Y(i in R, j in D) = cumsum(j: X(i, j))"},
      {compute("Y", {f.i, f.j}, cumprod(f.j, x)), "Y(i in R, j in D) = cumprod(j: X(i, j))"},
      {compute("Y", {f.i, f.j}, cumsum(f.j, x, {.reverse = true})), "Y(i in R, j in D) = cumsum(j, reverse: X(i, j))"},
      {compute("Y", {f.i, f.j}, cumsum(f.j, x, {.exclusive = true})),
       "Y(i in R, j in D) = cumsum(j, exclusive: X(i, j))"},
      {compute("Y", {f.i, f.j}, cumprod(f.i, x * 2, {.reverse = true, .exclusive = true})),
       "Y(i in R, j in D) = cumprod(i, reverse, exclusive: X(i, j) * 2)"},
      {compute("Y", {f.i, f.j}, cumsum(f.j, x * cast(DType::f32, f.M(f.i, f.j)))),
       "Y(i in R, j in D) = cumsum(j: X(i, j) * f32(M(i, j)))"},
  };
  for (const auto& [stage, text] : cases) {
    EXPECT_EQ(stage_to_text(stage.def()), text);
    Func back = stage_from_text(text, f.scope());
    std::string why;
    EXPECT_TRUE(same_stage(stage.def(), back.def(), &why)) << text << ": " << why;
    EXPECT_TRUE(back.def().is_scan());
    EXPECT_FALSE(back.def().is_reduction());
  }
  // The flags are part of the tree: a reverse scan is not the same stage as a forward one.
  std::string why;
  EXPECT_FALSE(same_stage(compute("Y", {f.i, f.j}, cumsum(f.j, x)).def(),
                          compute("Y", {f.i, f.j}, cumsum(f.j, x, {.reverse = true})).def(), &why));
}

TEST(ScanText, TheScannedVariableAndItsOptions) {
  ScanFixture f;
  Func y = compute("Y", {f.i, f.j}, cumsum(f.j, f.X(f.i, f.j), {.exclusive = true}));
  EXPECT_EQ(y.def().scan_dim(), 1);
  EXPECT_EQ(y.def().body->name, "j");
  EXPECT_EQ(y.def().body->ival, kScanExclusive);
  EXPECT_EQ(y.def().dtype, DType::f32);
}

TEST(ScanText, BadScansAreStructuredErrors) {
  ScanFixture f;
  ExprScope s = f.scope();
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(k: X(i, j))", s), "expr-syntax");  // not a pure variable
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j, sideways: X(i, j))", s), "expr-syntax");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j, reverse, reverse: X(i, j))", s), "expr-syntax");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j, exclusive, reverse: X(i, j))", s), "expr-syntax");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j X(i, j))", s), "expr-syntax");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = 1 + cumsum(j: X(i, j))", s), "nested-reduction");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j: cumsum(j: X(i, j)))", s), "nested-reduction");
  EXPECT_EQ(stage_error("Y(i in R, j in D) = cumsum(j: sum(k in D: X(i, k)))", s), "nested-reduction");
  EXPECT_EQ(stage_error("cumsum(i in R) = X(i, 0)", s), "duplicate-name");
}

TEST(ScanDsl, AScanAlongAVariableOutsideTheDomainIsRefused) {
  ScanFixture f;
  try {
    compute("Y", {f.i}, cumsum(f.j, f.X(f.i, f.j)));
    ADD_FAILURE() << "compute accepted a scan along a variable outside its domain";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "scan-variable-not-in-domain");
    EXPECT_FALSE(e.error().hint.empty());
  }
  try {
    compute("Y", {f.i, f.j}, Expr(1.0f) + cumsum(f.j, f.X(f.i, f.j)));
    ADD_FAILURE() << "compute accepted a scan inside a larger expression";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "nested-reduction");
  }
}

// Y(i, j) = cumsum(j: X(i, j)) over (R, D) = (6, 1000); P(i, j) = X(i, j) * 2.
ScheduleContext scan_context(bool with_producer = false) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  Func P = compute("P", {i, j}, X(i, j) * 2);
  Func Y = compute("Y", {i, j}, cumsum(j, with_producer ? P(i, j) : X(i, j)));
  ScheduleContext c;
  c.pipeline = Pipeline({Y});
  c.sizes = {{"R", 6}, {"D", 1000}};
  return c;
}

const json kBlockScan = json::parse(R"([
  {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.x"},
  {"op": "split", "stage": "Y", "loop": "j", "factor": 4, "outer": "jr", "inner": "jv"},
  {"op": "split", "stage": "Y", "loop": "jr", "factor": 128, "outer": "jo", "inner": "jt"},
  {"op": "cross_thread_scan", "stage": "Y", "loop": "jt"},
  {"op": "vectorize", "stage": "Y", "loop": "jv"}])");

TEST(CrossThreadScan, BindsTheLoopToThreadsAndReplays) {
  Schedule s = build(scan_context(), kBlockScan);
  EXPECT_EQ(s.state().stage("Y").scan_thread_loop, "jt");
  EXPECT_EQ(loop(s, "Y", "jt").axis, GpuAxis::ThreadX);
  EXPECT_NO_THROW(s.check_legality());
  expect_replays(s);
}

TEST(CrossThreadScan, Errors) {
  json steps = kBlockScan;
  steps[3]["loop"] = "i";
  steps[0] = {{"op", "split"}, {"stage", "Y"}, {"loop", "i"}, {"factor", 2}, {"outer", "io"}, {"inner", "ii"}};
  expect_step_error(scan_context(), steps, 3, "cross_thread_scan", "unknown-loop");
  expect_step_error(scan_context(), json::parse(R"([{"op": "cross_thread_scan", "stage": "Y", "loop": "i"}])"), 0,
                    "cross_thread_scan", "cross-thread-scan-pure-loop");
  expect_step_error(scan_context(true), json::parse(R"([{"op": "cross_thread_scan", "stage": "P", "loop": "j"}])"), 0,
                    "cross_thread_scan", "cross-thread-scan-not-scan");
  expect_step_error(scan_context(), json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 48, "outer": "jo", "inner": "jt"},
    {"op": "cross_thread_scan", "stage": "Y", "loop": "jt"}])"),
                    1, "cross_thread_scan", "block-scan-extent");
  expect_step_error(scan_context(), json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 32, "outer": "jo", "inner": "jt"},
    {"op": "cross_thread_scan", "stage": "Y", "loop": "jt"},
    {"op": "cross_thread_scan", "stage": "Y", "loop": "jo"}])"),
                    2, "cross_thread_scan", "cross-thread-twice");
  expect_step_error(scan_context(), json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 32, "outer": "jo", "inner": "jt"},
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "threadIdx.x"},
    {"op": "cross_thread_scan", "stage": "Y", "loop": "jt"}])"),
                    2, "cross_thread_scan", "axis-bound-twice");
}

Error legality_error(const ScheduleContext& ctx, const json& steps) {
  ValidationResult r = validate_schedule(ctx, steps);
  EXPECT_FALSE(r.ok) << steps.dump();
  EXPECT_FALSE(r.error.hint.empty());
  EXPECT_EQ(r.error.phase, "schedule");
  return r.error;
}

TEST(ScanLegality, EveryRuleNamesTheStepThatBrokeIt) {
  const ScheduleContext c = scan_context(), cp = scan_context(true);
  Error e = legality_error(c, json::parse(R"([{"op": "reorder", "stage": "Y", "loops": ["j", "i"]}])"));
  EXPECT_EQ(e.code, "scan-loops-not-innermost");
  EXPECT_EQ(e.step, 0);
  e = legality_error(c, json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 8, "outer": "jo", "inner": "ji"},
    {"op": "reorder", "stage": "Y", "loops": ["i", "ji", "jo"]}])"));
  EXPECT_EQ(e.code, "scan-loops-not-innermost");
  EXPECT_EQ(e.step, 1);
  EXPECT_EQ(
      legality_error(c, json::parse(R"([{"op": "fuse", "stage": "Y", "outer": "i", "inner": "j", "fused": "f"}])"))
          .code,
      "scan-loop-fused");
  EXPECT_EQ(legality_error(c, json::parse(R"([{"op": "reverse", "stage": "Y", "loop": "j"}])")).code,
            "scan-loop-reversed");
  e = legality_error(c, json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 8, "outer": "jo", "inner": "ji"},
    {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.y"}])"));
  EXPECT_EQ(e.code, "scan-loop-bound");
  EXPECT_EQ(e.step, 1);
  EXPECT_EQ(legality_error(c, json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 8, "outer": "jo", "inner": "ji"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "register", "at": "jo"}])"))
                .code,
            "scan-placement-inside");
  EXPECT_EQ(
      legality_error(cp, json::parse(R"([{"op": "compute_at", "stage": "P", "consumer": "Y", "loop": "j"}])")).code,
      "scan-placement-inside");
  EXPECT_EQ(legality_error(c, json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "i", "factor": 2, "outer": "io", "inner": "ii"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "io"},
    {"op": "pipeline", "stage": "Y", "loop": "io", "depth": 2}])"))
                .code,
            "scan-step-unsupported");
  // A stage that reads a scan cannot take the scan inside itself.
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R), j("j", D);
  Func S = compute("S", {i, j}, cumsum(j, X(i, j)));
  Func Y = compute("Y", {i, j}, S(i, j) * 2);
  ScheduleContext chained;
  chained.pipeline = Pipeline({Y});
  chained.sizes = {{"R", 6}, {"D", 100}};
  EXPECT_EQ(legality_error(chained, json::parse(R"([{"op": "compute_inline", "stage": "S"}])")).code, "scan-not-root");
  // Inlining the producer into the scan is fine.
  EXPECT_TRUE(validate_schedule(cp, json::parse(R"([{"op": "compute_inline", "stage": "P"}])")).ok);
}

}  // namespace
}  // namespace cusched::testing
