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

}  // namespace
}  // namespace cusched::search
