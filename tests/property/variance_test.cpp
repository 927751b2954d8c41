// variance, the triple reduction (count, mean, sum of squared deviations; a thread's sums
// shifted by its first value, Chan's combine): its float64 reference (Welford's update),
// and a row normalisation written with it, verified in the interpreter on rows whose mean is large against their spread (where
// E[x^2] - E[x]^2 cancels in f32), from serial accumulation, each combine across threads
// (warp, block along x, block along y) and random legal schedules; its CUDA compiles with
// NVRTC for every combine, the cluster's (each thread's own triple, or the block's one
// triple pushed) included; rfactor is refused.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/random_schedule.h"
#include "dsl/reference_eval.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/property/carried_reduction_checks.h"

namespace cusched {
namespace {

nlohmann::json normalisation_json(const std::string& name, const std::string& stage) {
  nlohmann::json j = nlohmann::json::parse(R"json({
    "title": "rows normalised by their mean and variance",
    "torch": "(X - X.mean(1, keepdim=True)) / torch.sqrt(X.var(1, unbiased=False, keepdim=True) + 1e-5)",
    "sizes": {"small": {"R": 6, "D": 37}, "bench": {"R": 4096, "D": 8192}},
    "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "D"],
                "distribution": {"kind": "normal", "a": 0, "b": 1},
                "adversarial": {"kind": "normal", "a": 1000, "b": 0.1}}],
    "outputs": ["Y"]})json");
  j["name"] = name;
  j["stages"] = {stage};
  return j;
}

// Row normalisation of 37 (small) elements: the split stages Y_sum0(i) and Y_variance0(i).
const Problem& normalisation() {
  static const Problem p =
      problem_from_json(normalisation_json("rownorm_variance",
                                           "Y(i in R, j in D) = (X(i, j) - sum(k in D: X(i, k)) / f32(D)) * "
                                           "rsqrt(variance(k in D: X(i, k)) + 1e-05)"),
                        "variance_test");
  return p;
}

runtime::InterpVerification verify(const nlohmann::json& steps) {
  const Problem& p = normalisation();
  return runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 7);
}

TEST(Variance, ReferenceIsThePopulationVarianceAndStableAtLargeMeans) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R);
  RVar k("k", D);
  Func Y = compute("Y", {i}, variance(k, X(i, k)));
  std::vector<double> x = {1,       2,       3,       4,        // 1.25
                           1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4,  // 1.25, where x^2 loses the deviations
                           5,       5,       5,       5,       -2, 0, 2, std::nan("")};
  auto y = evaluate_reference(Pipeline({Y}), {{"R", 4}, {"D", 4}}, {{"X", x}})["Y"];
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], 1.25, 1e-12);
  EXPECT_NEAR(y[1], 1.25, 1e-6);
  EXPECT_EQ(y[2], 0.0);
  EXPECT_TRUE(std::isnan(y[3]));
}

TEST(Variance, TextFormRoundTripsAndAnIntegerBodyIsRefused) {
  const Problem& p = normalisation();
  const FuncDef* v = p.pipeline.find_stage("Y_variance0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->body->reduce_op, ReduceOp::Variance);
  EXPECT_NE(to_string(v->body).find("variance("), std::string::npos);
  EXPECT_EQ(problem_to_json(problem_from_json(problem_to_json(p), "again")), problem_to_json(p));
  expect_integer_body_refused(variance, "variance-integer-body");
}

TEST(Variance, NormalisationVerifiesAtLargeMeansForEveryCombine) {
  const NamedSchedules schedules = {
      {"baseline", automatic_baseline(normalisation().pipeline)},
      {"warp", nlohmann::json::parse(R"([
        {"op": "split", "stage": "Y_variance0", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
        {"op": "bind", "stage": "Y_variance0", "loop": "i", "axis": "blockIdx.x"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "ki", "kind": "warp"}])")},
      {"block", nlohmann::json::parse(R"([
        {"op": "bind", "stage": "Y_variance0", "loop": "i", "axis": "blockIdx.x"},
        {"op": "split", "stage": "Y_variance0", "loop": "k", "factor": 64, "outer": "ko", "inner": "ki"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "ki", "kind": "block"}])")},
      {"block along y", nlohmann::json::parse(R"([
        {"op": "split", "stage": "Y_variance0", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
        {"op": "split", "stage": "Y_variance0", "loop": "i", "factor": 4, "outer": "io", "inner": "ii"},
        {"op": "bind", "stage": "Y_variance0", "loop": "io", "axis": "blockIdx.x"},
        {"op": "bind", "stage": "Y_variance0", "loop": "ii", "axis": "threadIdx.x"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "ki", "kind": "block", "axis": "threadIdx.y"}])")},
      {"fused at the row", nlohmann::json::parse(R"([
        {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.x"},
        {"op": "split", "stage": "Y", "loop": "j", "factor": 32, "outer": "jo", "inner": "ji"},
        {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"},
        {"op": "compute_at", "stage": "Y_sum0", "consumer": "Y", "loop": "i"},
        {"op": "compute_at", "stage": "Y_variance0", "consumer": "Y", "loop": "i"},
        {"op": "split", "stage": "Y_variance0", "loop": "k", "factor": 32, "outer": "ko", "inner": "ki"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "ki", "kind": "warp"},
        {"op": "split", "stage": "Y_sum0", "loop": "k", "factor": 32, "outer": "ko", "inner": "ki"},
        {"op": "cross_thread_reduce", "stage": "Y_sum0", "loop": "ki", "kind": "warp"}])")},
      {"cluster", nlohmann::json::parse(R"([
        {"op": "bind", "stage": "Y_variance0", "loop": "i", "axis": "blockIdx.y"},
        {"op": "split", "stage": "Y_variance0", "loop": "k", "parts": 4, "outer": "kc", "inner": "kr"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "kc", "kind": "cluster"}])")},
      {"block then cluster", nlohmann::json::parse(R"([
        {"op": "bind", "stage": "Y_variance0", "loop": "i", "axis": "blockIdx.y"},
        {"op": "split", "stage": "Y_variance0", "loop": "k", "parts": 4, "outer": "kc", "inner": "kr"},
        {"op": "split", "stage": "Y_variance0", "loop": "kr", "factor": 32, "outer": "ks", "inner": "kt"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "kt", "kind": "block"},
        {"op": "cross_thread_reduce", "stage": "Y_variance0", "loop": "kc", "kind": "cluster"}])")},
  };
  expect_verifies_and_compiles(
      normalisation(), schedules, [](const std::string&) { return std::vector<std::string>{"small", "bench"}; },
      "cusched::VarianceOp", {"warp", "block", "block along y", "fused at the row", "cluster", "block then cluster"});
}

// E[x^2] - E[x]^2 in f32 cancels on the same inputs: the triple is what keeps it right.
TEST(Variance, TheNaiveFormFailsOnTheSameInputs) {
  Problem naive =
      problem_from_json(normalisation_json("rownorm_naive",
                                           "Y(i in R, j in D) = (X(i, j) - sum(k in D: X(i, k)) / f32(D)) * "
                                           "rsqrt(sum(k in D: X(i, k) * X(i, k)) / f32(D) - "
                                           "(sum(l in D: X(i, l)) / f32(D)) * (sum(l in D: X(i, l)) / f32(D)) + "
                                           "1e-05)"),
                        "variance_test");
  runtime::InterpVerification v = runtime::verify_with_interpreter(
      naive, Schedule::from_json(naive.context("small"), automatic_baseline(naive.pipeline)), "small", 7);
  EXPECT_NE(v.verdict, runtime::Verdict::ok) << v.message;
}

TEST(Variance, RfactorIsRefusedAtItsStep) {
  const ScheduleContext ctx = normalisation().context("small");
  ValidationResult r = validate_schedule(ctx, nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y_variance0", "loop": "k", "factor": 4, "outer": "ko", "inner": "ki"},
    {"op": "rfactor", "stage": "Y_variance0", "loop": "ko", "name": "P"}])"));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "rfactor-variance");
  EXPECT_EQ(r.error.step, 1);
}

TEST(Variance, RandomLegalSchedulesVerify) {
  const Problem& p = normalisation();
  std::mt19937_64 rng(13);
  int verified = 0;
  for (int n = 0; n < 24; ++n) {
    nlohmann::json steps = random_schedule(p.context("small"), rng);
    SCOPED_TRACE(steps.dump());
    runtime::InterpVerification v = verify(steps);
    EXPECT_EQ(v.verdict, runtime::Verdict::ok) << v.message << " " << v.error.to_string();
    verified += v.verdict == runtime::Verdict::ok;
  }
  EXPECT_EQ(verified, 24);
}

}  // namespace
}  // namespace cusched

namespace cusched {
namespace {

// A thread's serial reduction adds each value's deviation from the first value it took
// and its square, with no division per value; its accumulators become the mean and the
// squared deviations once, after the loop (the divisions are there).
TEST(Variance, AThreadsLoopTakesEachValueWithoutADivision) {
  const Problem& p = normalisation();
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y_variance0", "loop": "i", "axis": "blockIdx.x"}])");
  const std::string cuda = emit_cuda(lower(Schedule::from_json(p.context("bench"), steps), p.name));
  const size_t kernel = cuda.find("Y_variance0(");
  ASSERT_NE(kernel, std::string::npos);
  const size_t loop = cuda.find("for (", kernel);
  ASSERT_NE(loop, std::string::npos);
  size_t end = cuda.find('{', loop);
  for (int depth = 0; end < cuda.size(); ++end) {
    depth += cuda[end] == '{' ? 1 : cuda[end] == '}' ? -1 : 0;
    if (depth == 0) break;
  }
  const std::string body = cuda.substr(loop, end - loop);
  EXPECT_NE(body.find("Y_variance0_acc_squares"), std::string::npos) << body;
  EXPECT_EQ(body.find('/'), std::string::npos) << body;
  const size_t after = cuda.find("Y_variance0_acc_count[0], 1.0f)", end);
  EXPECT_NE(after, std::string::npos) << cuda.substr(end, 600);
}

}  // namespace
}  // namespace cusched
