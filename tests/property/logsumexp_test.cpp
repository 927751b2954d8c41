// logsumexp, the pair reduction of a running maximum and a sum of exponentials: its
// float64 reference, and a log-softmax written with it, verified in the interpreter on
// logits large enough that exp overflows f32, from serial accumulation, each combine
// across threads (warp, block, cluster), rfactor and random legal schedules; its CUDA
// compiles with NVRTC for every combine.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/random_schedule.h"
#include "dsl/reference_eval.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/property/carried_reduction_checks.h"

namespace cusched {
namespace {

// Log-softmax of rows of 20 (small) elements: the split stage Y_logsumexp0(i) reduces k.
const Problem& log_softmax() {
  static const Problem p = problem_from_json(nlohmann::json::parse(R"json({
    "name": "logsoftmax_lse", "title": "log-softmax over rows with logsumexp",
    "torch": "torch.log_softmax(X, dim=1)",
    "sizes": {"small": {"R": 6, "D": 20}, "bench": {"R": 4096, "D": 8192}},
    "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "D"],
                "distribution": {"kind": "normal", "a": 100, "b": 3},
                "adversarial": {"kind": "normal", "a": 200, "b": 30}}],
    "stages": ["Y(i in R, j in D) = X(i, j) - logsumexp(k in D: X(i, k))"],
    "outputs": ["Y"]})json"),
                                             "logsumexp_test");
  return p;
}

runtime::InterpVerification verify(const nlohmann::json& steps) {
  const Problem& p = log_softmax();
  return runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 7);
}

TEST(LogSumExp, ReferenceIsStableWhereTheNaiveFormOverflowsAndFollowsTorchAtInfinities) {
  Size R("R"), D("D");
  Tensor X("X", DType::f32, {R, D});
  Var i("i", R);
  RVar k("k", D);
  Func Y = compute("Y", {i}, logsumexp(k, X(i, k)));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> x = {0.5,  -1.25, 2.0,  3.5,  // finite: log(sum(exp))
                           1000, 999,   998,  -5,   // exp(1000) overflows even a double
                           -inf, -inf,  -inf, -inf, inf, 1, 2, 3};
  auto y = evaluate_reference(Pipeline({Y}), {{"R", 4}, {"D", 4}}, {{"X", x}})["Y"];
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], std::log(std::exp(0.5) + std::exp(-1.25) + std::exp(2.0) + std::exp(3.5)), 1e-12);
  EXPECT_NEAR(y[1], 1000 + std::log(1 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-1005.0)), 1e-9);
  EXPECT_EQ(y[2], -inf);
  EXPECT_EQ(y[3], inf);
}

TEST(LogSumExp, TextFormRoundTripsAndAnIntegerBodyIsRefused) {
  const Problem& p = log_softmax();
  ASSERT_NE(p.pipeline.find_stage("Y_logsumexp0"), nullptr);
  EXPECT_EQ(p.pipeline.find_stage("Y_logsumexp0")->body->reduce_op, ReduceOp::LogSumExp);
  EXPECT_NE(to_string(p.pipeline.find_stage("Y_logsumexp0")->body).find("logsumexp("), std::string::npos);
  expect_integer_body_refused(logsumexp, "logsumexp-integer-body");
}

TEST(LogSumExp, LogSoftmaxVerifiesOnLargeLogitsForEveryCombine) {
  const NamedSchedules schedules = {
      {"baseline", automatic_baseline(log_softmax().pipeline)},
      {"warp", nlohmann::json::parse(R"([
        {"op": "split", "stage": "Y_logsumexp0", "loop": "k", "factor": 4, "outer": "ko", "inner": "ki"},
        {"op": "bind", "stage": "Y_logsumexp0", "loop": "i", "axis": "blockIdx.x"},
        {"op": "cross_thread_reduce", "stage": "Y_logsumexp0", "loop": "ki", "kind": "warp"}])")},
      {"block", nlohmann::json::parse(R"([
        {"op": "bind", "stage": "Y_logsumexp0", "loop": "i", "axis": "blockIdx.x"},
        {"op": "split", "stage": "Y_logsumexp0", "loop": "k", "factor": 64, "outer": "ko", "inner": "ki"},
        {"op": "cross_thread_reduce", "stage": "Y_logsumexp0", "loop": "ki", "kind": "block"}])")},
      {"cluster", nlohmann::json::parse(R"([
        {"op": "split", "stage": "Y_logsumexp0", "loop": "k", "factor": 4, "outer": "ko", "inner": "ki"},
        {"op": "bind", "stage": "Y_logsumexp0", "loop": "i", "axis": "blockIdx.y"},
        {"op": "cross_thread_reduce", "stage": "Y_logsumexp0", "loop": "ki", "kind": "warp"},
        {"op": "cross_thread_reduce", "stage": "Y_logsumexp0", "loop": "ko", "kind": "cluster"}])")},
      {"rfactor", nlohmann::json::parse(R"([
        {"op": "split", "stage": "Y_logsumexp0", "loop": "k", "factor": 4, "outer": "ko", "inner": "ki"},
        {"op": "rfactor", "stage": "Y_logsumexp0", "loop": "ko", "name": "P"}])")},
  };
  // Every combine lowers to CUDA that NVRTC compiles for sm_90a, at the bench size too
  // (except the cluster schedule, whose 2048 blocks of a row there are no cluster).
  expect_verifies_and_compiles(log_softmax(), schedules,
                               [](const std::string& name) {
                                 return name == "cluster" ? std::vector<std::string>{"small"}
                                                          : std::vector<std::string>{"small", "bench"};
                               },
                               "cusched::LogSumExpOp", {"warp", "block", "cluster"});
}

// The naive form, log(sum(exp(x))), overflows f32 on the same inputs: the pair is what
// keeps the result finite.
TEST(LogSumExp, TheNaiveFormFailsOnTheSameInputs) {
  const Problem& p = log_softmax();
  nlohmann::json j = problem_to_json(p);
  j["name"] = "logsoftmax_naive";
  j["stages"] = {"Y(i in R, j in D) = X(i, j) - log(sum(k in D: exp(X(i, k))))"};
  Problem naive = problem_from_json(j, "logsumexp_test");
  // Its reference is computed in float64 and stays finite; the f32 kernel overflows.
  runtime::InterpVerification v = runtime::verify_with_interpreter(
      naive, Schedule::from_json(naive.context("small"), automatic_baseline(naive.pipeline)), "small", 7);
  EXPECT_NE(v.verdict, runtime::Verdict::ok) << v.message;
}

TEST(LogSumExp, RandomLegalSchedulesVerify) {
  const Problem& p = log_softmax();
  std::mt19937_64 rng(11);
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
