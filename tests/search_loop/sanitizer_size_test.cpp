// sanitizer_size (search/candidate_evaluation.h): compute-sanitizer runs a schedule at the
// small size, or at a larger one, only where its blocks get the shared memory they ask
// for; a schedule that fits none is not run (its error says why) rather than launched to
// fail.
#include <gtest/gtest.h>

#include "search/candidate_evaluation.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

TEST(SanitizerSize, EveryBundleItReturnsFitsABlocksSharedMemory) {
  // Level 2 #100: transposed 3-D convolution tiles over columns fused across rows, which at
  // the small size (rows of 3) span many more rows than at the bench size.
  const Problem p = kernelbench("level2/100_ConvTranspose3d_Clamp_Min_Divide.json");
  int fitted = 0, scaled = 0;
  for (const auto& s : legal_sketches(p)) {
    try {
      SanitizerSize at = sanitizer_size(p, s.schedule, false);
      ++fitted;
      EXPECT_TRUE(at.size == "small" || at.size.rfind("small_rows16", 0) == 0) << at.size;
      scaled += at.size.find("_x") != std::string::npos;
      EXPECT_FALSE(shared_memory_error(at.bundle, at.size).has_value()) << s.idea;
    } catch (const UserError& e) {
      // No size fits: the small size's error stands.
      try {
        auto bundle = make_bundle(lower(Schedule::from_json(p.context("small", false), s.schedule), p.name));
        EXPECT_TRUE(shared_memory_error(bundle, "small").has_value()) << s.idea << ": " << e.what();
      } catch (const UserError&) {}
    }
  }
  EXPECT_GT(fitted, 0);
  EXPECT_GT(scaled, 0) << "some tile of level 2 #100 fits a block only at a scaled size";
}

TEST(SanitizerSize, ASplitIntoPartsMadeForTheBenchSizeRunsAtAFractionOfIt) {
  // Level 2 #51: the presummed weight's rows (12 at the small size, 8192 at the bench size)
  // split into 64 parts, which no multiple of 12 up to 8 times covers evenly.
  const Problem p = kernelbench("level2/51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd.json");
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "presum", "stage": "RowSum", "name": "gemm_weight_presum"},
    {"op": "split", "stage": "gemm_weight_presum", "loop": "rj", "outer": "rjo", "inner": "rji", "parts": 64},
    {"op": "rfactor", "stage": "gemm_weight_presum", "loop": "rjo", "name": "gemm_weight_presum_rf"}
  ])");
  EXPECT_THROW(Schedule::from_json(p.context("small", false), steps), UserError);
  SanitizerSize at = sanitizer_size(p, steps, false);
  EXPECT_EQ(at.size, "bench_div64");
  EXPECT_EQ(at.problem.size(at.size).at("OUT"), 8192 / 64);
  EXPECT_EQ(at.problem.size(at.size).at("B"), 2048 / 64);
  EXPECT_FALSE(at.bundle.launches.empty());
}

}  // namespace
}  // namespace cusched::search
