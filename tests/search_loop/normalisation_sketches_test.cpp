// The normalisation class's sketches (search/normalisation_sketches.h) where the rows are
// not the output's leading loops or are few: BatchNorm (statistics per channel, over the
// batch and the image) and LayerNorm (16 rows of 4M elements at KernelBench's shape) get
// their statistics on grids of their own, split over a cluster of blocks per point, and the
// output as a flat grid; such sketches verify in the interpreter. BatchNorm's statistics
// are indexed by a variable named `c`, which the loops of the combines across threads and
// across the cluster must not shadow. RMSNorm (a sum of squares over the channels of NCHW,
// no matrix product) gets one thread per statistics point with the output's channel loop
// inside it: one kernel that reads its input twice, adjacent threads at adjacent addresses.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/class_sketches.h"
#include "search/cost_model.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

Problem kernelbench_file(const std::string& file) {
  return load_problem_file((fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / file).string());
}

// Whether `steps` validate at every size of `p` (each size that does not is a failure).
bool legal_at_every_size(const Problem& p, const nlohmann::json& steps) {
  bool legal = true;
  for (const auto& [size, _] : p.sizes) {
    ValidationResult v = validate_schedule(p.context(size), steps);
    EXPECT_TRUE(v.ok) << size << ": " << v.error.to_string();
    legal = legal && v.ok;
  }
  return legal;
}

// The sketches of `p` whose idea starts with "statistics on grids of their own": each
// legal at every size, the statistic Q combined across a block and then across a cluster
// and S stored by Q's kernel (sum_with_variance), and verified in the interpreter at the
// small size.
int expect_statistics_sketches_verify(const Problem& p) {
  int found = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
    if (s.idea.rfind("statistics on grids of their own", 0) != 0) continue;
    ++found;
    SCOPED_TRACE(s.idea);
    legal_at_every_size(p, s.schedule);
    std::map<std::string, std::set<std::string>> kinds;
    for (const auto& step : s.schedule)
      if (step.value("op", "") == "cross_thread_reduce") kinds[step.value("stage", "")].insert(step.value("kind", ""));
    EXPECT_EQ(kinds["Q"], (std::set<std::string>{"block", "cluster"}));
    EXPECT_TRUE(kinds["S"].empty());
    EXPECT_EQ(Schedule::from_json(p.context("small"), s.schedule).state().stage("S").with_variance, "Q");
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
  }
  return found;
}

TEST(NormalisationSketches, BatchNormStatisticsPerChannelSplitOverClustersVerify) {
  const Problem p = kernelbench_file("level1/33_BatchNorm.json");
  ASSERT_EQ(classify_pipeline(p.pipeline), ProblemClass::normalisation);
  EXPECT_EQ(expect_statistics_sketches_verify(p), 2);
}

TEST(NormalisationSketches, LayerNormOfFewLongRowsSplitsItsStatisticsOverClusters) {
  const Problem p = kernelbench_file("level1/40_LayerNorm.json");
  ASSERT_EQ(classify_pipeline(p.pipeline), ProblemClass::normalisation);
  EXPECT_EQ(expect_statistics_sketches_verify(p), 2);
}

TEST(NormalisationSketches, RmsNormOverChannelsReducesEachPointInOneThreadFusedWithItsOutput) {
  const Problem p = kernelbench_file("level1/36_RMSNorm_.json");
  ASSERT_EQ(classify_pipeline(p.pipeline), ProblemClass::normalisation) << "a sum of squares is no matrix product";
  ASSERT_EQ(classify_pipeline(kernelbench_file("level1/37_FrobeniusNorm_.json").pipeline), ProblemClass::normalisation);
  const double input_bytes = 112.0 * 64 * 512 * 512 * 4;
  int found = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
    if (s.idea.rfind("one thread per point of S", 0) != 0) continue;
    ++found;
    SCOPED_TRACE(s.idea);
    ASSERT_TRUE(legal_at_every_size(p, s.schedule));
    CostBreakdown c = estimate_cost(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
    EXPECT_EQ(c.kernels, 1);
    EXPECT_LE(c.global_bytes, 3.05 * input_bytes);  // X twice, Y once
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
  }
  EXPECT_EQ(found, 4);
  // LayerNorm's statistics run over the innermost loops: no such sketch.
  for (const auto& s : class_sketches(kernelbench_file("level1/40_LayerNorm.json"), ProblemClass::normalisation))
    EXPECT_NE(s.idea.rfind("one thread per point of", 0), 0u) << s.idea;
}

// Rows of several variables (InstanceNorm's (n, c), GroupNorm's (n, g) rows of (h, w)
// columns, LayerNorm's (c, h, w) columns) spread over clusters: the row, column and
// reduction loops fused into one each first; every such sketch legal at every size and
// lowered at the bench size, and each cluster size's first verified in the interpreter.
TEST(NormalisationSketches, RowsOfSeveralVariablesSpreadOverClustersAfterFusingThem) {
  for (const char* file : {"level1/34_InstanceNorm.json", "level1/35_GroupNorm_.json", "level1/40_LayerNorm.json"}) {
    SCOPED_TRACE(file);
    const Problem p = kernelbench_file(file);
    std::set<std::string> verified;
    int found = 0;
    for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
      if (s.idea.rfind("rows over clusters of ", 0) != 0) continue;
      ++found;
      SCOPED_TRACE(s.idea);
      EXPECT_EQ(s.schedule.at(0).value("op", ""), "fuse");
      ASSERT_TRUE(legal_at_every_size(p, s.schedule));
      EXPECT_NO_THROW(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
      const std::string cluster = s.idea.substr(0, s.idea.find(" blocks"));
      if (!verified.insert(cluster).second) continue;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 2);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
    }
    EXPECT_EQ(found, 12) << "clusters of 2, 4 and 8 blocks of 512 or 1024 threads, float4 reductions or not";
    EXPECT_EQ(verified.size(), 3u);
  }
}

// A matrix product's sketch schedules the chain's other stages too: GroupNorm's statistics
// after a GEMM (level 2 #37: 32768 x 64 points of 64 channels; the variance's kernel storing
// the sum as well) get a warp per point, eight
// points a block, its lanes reading consecutive channels, instead of a block of 64 threads
// per point; legal at every size, estimated below a block per point at the bench size, and
// verified in the interpreter at the small size (4 channels a point: lanes past the end idle).
TEST(NormalisationSketches, ShortStatisticsAfterAProductGetAWarpPerPoint) {
  const Problem p = kernelbench_file("level2/37_Matmul_Swish_Sum_GroupNorm.json");
  int found = 0;
  ASSERT_EQ(classify_pipeline(p.pipeline), ProblemClass::matmul);
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    SCOPED_TRACE(s.idea);
    std::map<std::string, std::set<std::string>> kinds;
    for (const auto& step : s.schedule)
      if (step.value("op", "") == "cross_thread_reduce") kinds[step.value("stage", "")].insert(step.value("kind", ""));
    EXPECT_EQ(kinds["GNVar"], (std::set<std::string>{"warp"}));
    // In a legal sketch GNSum is stored by GNVar's kernel (sum_with_variance).
    if (validate_schedule(p.context("bench"), s.schedule).ok) {
      EXPECT_TRUE(kinds["GNSum"].empty());
    }
    if (found++ > 0) continue;
    ASSERT_TRUE(legal_at_every_size(p, s.schedule));
    EXPECT_EQ(Schedule::from_json(p.context("bench"), s.schedule).state().stage("GNSum").with_variance, "GNVar");
    // The same sketch with a block of 64 threads per statistics point, as before.
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& step : s.schedule)
      if (step.value("stage", "") != "GNVar") blocks.push_back(step);
    for (const auto& step : block_per_point_steps("GNVar", {"i", "g"}, {"rc"}, 64)) blocks.push_back(step);
    ASSERT_TRUE(legal_at_every_size(p, blocks));
    auto kernel_ms = [&](const nlohmann::json& steps, const std::string& name) {
      CostBreakdown c = estimate_cost(lower(Schedule::from_json(p.context("bench"), steps), p.name));
      for (const auto& k : c.per_kernel)
        if (k.kernel.find(name) != std::string::npos) return k.ms;
      ADD_FAILURE() << "no kernel " << name;
      return 0.0;
    };
    EXPECT_LT(kernel_ms(s.schedule, "GNVar") * 2, kernel_ms(blocks, "GNVar"));
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
  }
  EXPECT_GE(found, 1);
}

// Rows that are not whole float4s (level 1 #38, L1 norm over rows of 65535): the row-slice
// sketches also come with a thread's 4 values of each chunk a block's width apart, whose
// warps read and write contiguous words; the float4 slices fall back to 4 accesses 16
// bytes apart in each warp, which the cost model counts as such, so every slice a block's
// width apart is estimated below every float4 slice. They are legal at every size and
// verify in the interpreter (301 columns at the small size); for rows of whole float4s
// (level 1 #23, softmax over 393216 columns) the float4 slices keep their estimate.
TEST(NormalisationSketches, RowsOfPartFloat4sTakeSlicesWithLanesABlocksWidthApart) {
  constexpr const char* kApart = "4 values a thread a block's width apart";
  const Problem p = kernelbench_file("level1/38_L1Norm_.json");
  double best_apart = 1e30, best_float4 = 1e30;
  int apart = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
    if (s.idea.rfind("row slices in shared memory", 0) != 0) continue;
    SCOPED_TRACE(s.idea);
    const double ms = estimate_cost(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name)).ms;
    if (s.idea.find(kApart) == std::string::npos) {
      best_float4 = std::min(best_float4, ms);
      continue;
    }
    best_apart = std::min(best_apart, ms);
    ASSERT_TRUE(legal_at_every_size(p, s.schedule));
    if (apart++ > 0) continue;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.message;
  }
  EXPECT_EQ(apart, 4);
  EXPECT_LT(best_apart, 0.6 * best_float4);
  const Problem softmax = kernelbench_file("level1/23_Softmax.json");
  const nlohmann::json float4 = cluster_slice_normalizer_steps("Y", "i", "j", {"Lse"}, "k", "X", 8, 256);
  const nlohmann::json width_apart = cluster_slice_normalizer_steps("Y", "i", "j", {"Lse"}, "k", "X", 8, 256, 0, false);
  const double f = estimate_cost(lower(Schedule::from_json(softmax.context("bench"), float4), softmax.name)).ms;
  const double w = estimate_cost(lower(Schedule::from_json(softmax.context("bench"), width_apart), softmax.name)).ms;
  EXPECT_LE(f, w * 1.01);
}

}  // namespace
}  // namespace cusched::search
