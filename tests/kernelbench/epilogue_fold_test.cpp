// The level-2 chains whose output is a pointwise function of one GEMM or convolution
// (the pointwise stages between them inlined): fuse_epilogue folds the output into the
// product's final store, and the built-in proposer's sketches for the problem's class
// include that fold, legal at KernelBench's shapes, lowering to one kernel and verifying
// in the CPU interpreter at the small size; the files without such an output skip, and
// the set of files that fold is the documented one.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/class_sketches.h"
#include "tests/kernelbench/file_test_name.h"

namespace cusched {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kLevel2 = fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / "level2";

std::vector<std::string> level2_files() {
  std::vector<std::string> out;
  if (fs::is_directory(kLevel2))
    for (const auto& e : fs::directory_iterator(kLevel2))
      if (e.path().extension() == ".json") out.push_back("level2/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The output that can be folded into a sum of products with every other pointwise stage
// inlined ("" when none): the fold's own legality decides, on the problem's bench size.
std::string foldable_output(const Problem& p) {
  json inlined = json::array();
  for (const auto& f : p.pipeline.stages())
    if (!p.pipeline.is_output(f->name) && !f->is_reduction() && !f->is_scan())
      inlined.push_back({{"op", "compute_inline"}, {"stage", f->name}});
  for (const auto& f : p.pipeline.stages()) {
    if (!p.pipeline.is_output(f->name) || f->is_reduction() || f->is_scan()) continue;
    json steps = inlined;
    steps.push_back({{"op", "fuse_epilogue"}, {"stage", f->name}});
    if (!validate_schedule(p.context("bench"), steps).ok) continue;
    for (const auto& g : p.pipeline.stages())
      if (g->is_sum_of_products() &&
          Schedule::from_json(p.context("bench"), steps).state().folded_epilogue(g->name) == f->name)
        return f->name;
  }
  return "";
}

class Level2Fold : public ::testing::TestWithParam<std::string> {};

TEST_P(Level2Fold, AFoldableOutputHasAFoldedSketchThatVerifies) {
  const Problem p = load_problem_file((kLevel2.parent_path() / GetParam()).string());
  const std::string out = foldable_output(p);
  if (out.empty()) GTEST_SKIP() << "no pointwise output of a single GEMM or convolution";
  const std::string marker = ", with " + out + " folded into its final store (fuse_epilogue)";
  int tried = 0;
  for (const auto& s : search::class_sketches(p, search::classify_pipeline(p.pipeline))) {
    if (s.idea.find(marker) == std::string::npos) continue;
    if (!validate_schedule(p.context("bench"), s.schedule).ok) continue;
    EXPECT_EQ(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name).kernels.size(), 1u) << s.idea;
    const auto r =
        runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 7, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    ++tried;
    break;  // one verified fold per file keeps the suite fast
  }
  EXPECT_EQ(tried, 1) << "no folded sketch of " << out << " is legal at the bench size";
}

INSTANTIATE_TEST_SUITE_P(Level2, Level2Fold, ::testing::ValuesIn(level2_files()), kernelbench_tests::file_test_name);

// The files above that fold are the ones docs/kernelbench.md lists; without this a fold
// that stopped being legal would show only as one more skipped case.
TEST(Level2FoldSet, TheFilesWithAFoldableOutputAreTheDocumentedOnes) {
  std::set<std::string> foldable;
  for (const auto& f : level2_files())
    if (!foldable_output(load_problem_file((kLevel2.parent_path() / f).string())).empty())
      foldable.insert(f.substr(f.find('/') + 1, f.find('_') - f.find('/') - 1));
  const std::set<std::string> documented = {"12", "1",  "29", "31", "40", "47", "48", "4",  "53",
                                            "54", "57", "59", "63", "68", "69", "70", "71", "76",
                                            "7",  "81", "86", "87", "90", "95", "9"};
  EXPECT_EQ(foldable, documented) << "update the list in docs/kernelbench.md with the fold's reach";
}

}  // namespace
}  // namespace cusched
