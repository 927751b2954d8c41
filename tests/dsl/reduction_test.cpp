// rfactor and cross_thread_reduce: the stages and bindings they make, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

std::vector<std::string> stage_names(const Schedule& s) {
  std::vector<std::string> out;
  for (const auto& f : s.state().stages) out.push_back(f->name);
  return out;
}

TEST(Rfactor, SplitReductionBecomesAPartialStage) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 30},
    {"op": "rfactor", "stage": "S", "loop": "ko"}])"));
  EXPECT_EQ(s.steps()[1]["name"], "S_rf");
  // The partial stage is scheduled before the stage it feeds.
  EXPECT_EQ(stage_names(s), (std::vector<std::string>{"M", "S_rf", "S", "Y"}));
  const FuncDef* rf = s.state().stage_def("S_rf");
  ASSERT_NE(rf, nullptr);
  EXPECT_EQ(rf->vars, (std::vector<std::string>{"ko", "i"}));
  ASSERT_TRUE(rf->is_reduction());
  ASSERT_EQ(rf->body->rvars.size(), 1u);
  EXPECT_EQ(rf->body->rvars[0].name, "ki");
  EXPECT_EQ(rf->body->rvars[0].extent, 30);
  EXPECT_EQ(to_string(rf->body), "sum(ki; exp((X[i, ((ko * 30) + ki)] - M[i])))");
  // Fresh loops: the partial stage's ko is pure and parallel, the final stage reduces over ko.
  EXPECT_EQ(loop_order(s, "S_rf"), (std::vector<std::string>{"ko", "i", "ki"}));
  EXPECT_FALSE(loop(s, "S_rf", "ko").reduction);
  EXPECT_EQ(loop(s, "S_rf", "ko").extent, 10);  // 300 / 30
  EXPECT_TRUE(loop(s, "S_rf", "ki").reduction);
  EXPECT_EQ(loop_order(s, "S"), (std::vector<std::string>{"i", "ko"}));
  EXPECT_TRUE(loop(s, "S", "ko").reduction);
  const FuncDef* merged = s.state().stage_def("S");
  EXPECT_EQ(to_string(merged->body), "sum(ko; S_rf[ko, i])");
  // Y still reads S; S now reads S_rf.
  EXPECT_EQ(s.state().consumers_of("S_rf"), (std::vector<std::string>{"S"}));
}

TEST(Rfactor, StagesCanBeScheduledAfterwards) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8},
    {"op": "rfactor", "stage": "C", "loop": "ko", "name": "Cpart"},
    {"op": "bind", "stage": "Cpart", "loop": "ko", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.x"}])"));
  const FuncDef* rf = s.state().stage_def("Cpart");
  ASSERT_NE(rf, nullptr);
  EXPECT_EQ(loop(s, "Cpart", "ko").axis, GpuAxis::BlockZ);
  EXPECT_EQ(loop(s, "Cpart", "ko").extent, 5);
  EXPECT_EQ(loop_order(s, "C"), (std::vector<std::string>{"i", "j", "ko"}));
}

// A split that runs past the end of a sum of products: the partial stage's loads of the
// split variable become padded loads (zero past the end), so the short last part adds zero.
TEST(Rfactor, ASumOfProductsSplitPastItsEndReadsZeroThere) {
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 16},
    {"op": "rfactor", "stage": "C", "loop": "ko", "name": "Cpart"}])"));
  const FuncDef* rf = s.state().stage_def("Cpart");
  ASSERT_NE(rf, nullptr);
  EXPECT_EQ(loop(s, "Cpart", "ko").extent, 3);  // 40 in parts of 16: 16, 16, 8
  EXPECT_EQ(to_string(rf->body), "sum(ki; (padded(A[i, ((ko * 16) + ki)], 0) * padded(B[((ko * 16) + ki), j], 0)))");
  ASSERT_TRUE(rf->is_sum_of_load_products());
}

TEST(Rfactor, OneOfSeveralReductionVariables) {
  Schedule s = build(two_rvar_context(8, 6, 10), json::parse(R"([{"op": "rfactor", "stage": "S", "loop": "r"}])"));
  const FuncDef* rf = s.state().stage_def("S_rf");
  ASSERT_NE(rf, nullptr);
  EXPECT_EQ(rf->vars, (std::vector<std::string>{"r", "i"}));
  ASSERT_EQ(rf->body->rvars.size(), 1u);
  EXPECT_EQ(rf->body->rvars[0].name, "s");
  EXPECT_EQ(loop_order(s, "S_rf"), (std::vector<std::string>{"r", "i", "s"}));
  EXPECT_EQ(loop(s, "S_rf", "r").extent, 6);
  EXPECT_EQ(loop_order(s, "S"), (std::vector<std::string>{"i", "r"}));
}

TEST(RfactorErrors, EachError) {
  auto softmax = problem_context("softmax");
  expect_step_error(softmax, json::parse(R"([{"op": "rfactor", "stage": "Y", "loop": "j"}])"), 0, "rfactor",
                    "rfactor-pointwise");
  expect_step_error(argmax_context(), json::parse(R"([
    {"op": "split", "stage": "I", "loop": "k", "factor": 10},
    {"op": "rfactor", "stage": "I", "loop": "ko"}])"),
                    1, "rfactor", "rfactor-argreduce");
  expect_step_error(variance_context(), json::parse(R"([
    {"op": "split", "stage": "V", "loop": "k", "factor": 16},
    {"op": "rfactor", "stage": "V", "loop": "ko"}])"),
                    1, "rfactor", "rfactor-variance");
  expect_step_error(softmax, json::parse(R"([{"op": "rfactor", "stage": "S", "loop": "i"}])"), 0, "rfactor",
                    "rfactor-pure-loop");
  // The only reduction variable, unsplit.
  expect_step_error(softmax, json::parse(R"([{"op": "rfactor", "stage": "S", "loop": "k"}])"), 0, "rfactor",
                    "rfactor-bad-loop");
  // 300 is not a multiple of 32 and the sum is of exp(X - M), not of products of loads:
  // the partial stage would read past the end.
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 32},
    {"op": "rfactor", "stage": "S", "loop": "ko"}])"),
                    1, "rfactor", "rfactor-not-dividing");
  // The inner loop of a split.
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 32},
    {"op": "rfactor", "stage": "S", "loop": "ki"}])"),
                    1, "rfactor", "rfactor-bad-loop");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 30},
    {"op": "rfactor", "stage": "S", "loop": "ko", "name": "M"}])"),
                    1, "rfactor", "duplicate-name");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 30},
    {"op": "rfactor", "stage": "S", "loop": "ko", "name": "X"}])"),
                    1, "rfactor", "duplicate-name");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 30},
    {"op": "rfactor", "stage": "S", "loop": "ko", "name": "S-rf"}])"),
                    1, "rfactor", "bad-name");
  expect_step_error(softmax, json::parse(R"([{"op": "rfactor", "stage": "S", "loop": "q"}])"), 0, "rfactor",
                    "unknown-loop");
  // A producer computed inside the stage would be left at a loop of a stage that no longer reads it.
  expect_step_error(producer_reduction_context(), json::parse(R"([
    {"op": "split", "stage": "R", "loop": "r", "factor": 8},
    {"op": "compute_at", "stage": "P", "consumer": "R", "loop": "ro"},
    {"op": "rfactor", "stage": "R", "loop": "ro"}])"),
                    2, "rfactor", "rfactor-hosts-producer");
}

TEST(CrossThreadReduce, WarpReductionBindsTheLoop) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 32},
    {"op": "cross_thread_reduce", "loop": "ki", "kind": "warp"}])"));
  const auto& m = s.state().stage("M");
  EXPECT_EQ(m.cross_thread_loop, "ki");
  EXPECT_EQ(m.cross_thread_kind, "warp");
  EXPECT_EQ(loop(s, "M", "ki").axis, GpuAxis::ThreadX);  // the default axis
  EXPECT_EQ(s.steps()[1]["stage"], "M");
  EXPECT_EQ(s.steps()[1]["axis"], "threadIdx.x");
}

TEST(CrossThreadReduce, BlockReductionOnAnotherAxis) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "S", "loop": "k", "factor": 256},
    {"op": "bind", "stage": "S", "loop": "i", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "S", "loop": "ki", "axis": "threadIdx.y", "kind": "block"}])"));
  EXPECT_EQ(s.state().stage("S").cross_thread_kind, "block");
  EXPECT_EQ(loop(s, "S", "ki").axis, GpuAxis::ThreadY);
  EXPECT_EQ(loop(s, "S", "ko").axis, GpuAxis::None);
}

// A row's reduction (D = 300 at the small size) spread over the 5 blocks of a cluster: the loop is bound to
// cluster.x, and the stage may also combine another loop across threads.
TEST(CrossThreadReduce, ClusterReductionBindsClusterX) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 64, "outer": "kc", "inner": "kt"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "kt", "kind": "block"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "kc", "kind": "cluster"}])"));
  const auto& m = s.state().stage("M");
  EXPECT_EQ(m.cross_cluster_loop, "kc");
  EXPECT_EQ(m.cross_thread_loop, "kt");
  EXPECT_EQ(loop(s, "M", "kc").axis, GpuAxis::ClusterX);
  EXPECT_EQ(loop(s, "M", "kt").axis, GpuAxis::ThreadX);
}

TEST(CrossThreadReduceErrors, ClusterErrors) {
  auto softmax = problem_context("softmax");
  // At the small size D = 300: split by 16 leaves 19 blocks, more than a cluster holds (16).
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 16},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ko", "kind": "cluster"}])"),
                    1, "cross_thread_reduce", "cluster-extent");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 256},
    {"op": "split", "stage": "M", "loop": "ki", "factor": 64},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ko", "kind": "cluster"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "kio", "kind": "cluster"}])"),
                    3, "cross_thread_reduce", "cross-cluster-twice");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 16},
    {"op": "bind", "stage": "Y", "loop": "jo", "axis": "cluster.x"}])"),
                    1, "bind", "cluster-extent");
}

TEST(CrossThreadReduceErrors, EachError) {
  auto softmax = problem_context("softmax");
  expect_step_error(softmax,
                    json::parse(R"([{"op": "cross_thread_reduce", "stage": "M", "loop": "i", "kind": "warp"}])"), 0,
                    "cross_thread_reduce", "cross-thread-pure-loop");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 32},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "kind": "warp"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "axis": "threadIdx.y", "kind": "warp"}])"),
                    2, "cross_thread_reduce", "loop-already-bound");
  expect_step_error(two_rvar_context(8, 4, 8), json::parse(R"([
    {"op": "cross_thread_reduce", "stage": "S", "loop": "r", "kind": "warp"},
    {"op": "cross_thread_reduce", "stage": "S", "loop": "s", "axis": "threadIdx.y", "kind": "warp"}])"),
                    1, "cross_thread_reduce", "cross-thread-twice");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 64},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "kind": "warp"}])"),
                    1, "cross_thread_reduce", "warp-reduce-extent");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 12},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "kind": "warp"}])"),
                    1, "cross_thread_reduce", "warp-reduce-extent");
  expect_step_error(softmax,
                    json::parse(R"([{"op": "cross_thread_reduce", "stage": "M", "loop": "k", "kind": "block"}])"), 0,
                    "cross_thread_reduce", "block-reduce-extent");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 2048},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "kind": "block"}])"),
                    1, "cross_thread_reduce", "block-reduce-extent");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 32},
    {"op": "bind", "stage": "M", "loop": "i", "axis": "threadIdx.x"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "kind": "warp"}])"),
                    2, "cross_thread_reduce", "axis-bound-twice");
  expect_step_error(softmax, json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 32},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "ki", "axis": "blockIdx.x", "kind": "warp"}])"),
                    1, "cross_thread_reduce", "bad-choice");
}

}  // namespace
}  // namespace cusched::testing
