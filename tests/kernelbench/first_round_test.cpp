// The built-in proposer's first round for every KernelBench file at its bench size alone, as
// a GPU search makes it: the baseline and at least eight more legal schedules, sketches of
// the file's class among them (but for the files listed with their reason), every one legal
// at the bench size, the first sketch that is legal at the small size verifying there in the
// interpreter.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/builtin_proposer.h"
#include "tests/kernelbench/file_test_name.h"

namespace cusched {
namespace first_round {

namespace fs = std::filesystem;

const fs::path kFiles = fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench";

std::vector<std::string> kernelbench_files() {
  std::vector<std::string> out;
  for (const char* level : {"level1", "level2"})
    if (fs::is_directory(kFiles / level))
      for (const auto& e : fs::directory_iterator(kFiles / level))
        if (e.path().extension() == ".json") out.push_back(std::string(level) + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The files no sketch applies to, each with its reason; their first round is the baseline, its
// moves and random schedules.
const std::set<std::string> kNoSketch = {
    // Scans: the baseline is the block scan (docs/kernelbench.md); the flat pointwise
    // sketches would fuse the scanned loop, which validation refuses.
    "level1/89_cumsum.json", "level1/90_cumprod.json", "level1/91_cumsum_reverse.json",
    "level1/92_cumsum_exclusive.json", "level1/93_masked_cumsum.json"};

class FirstRound : public ::testing::TestWithParam<std::string> {};

TEST_P(FirstRound, HasTheBaselineAndEightMoreLegalSchedulesWithSketches) {
  const Problem p = load_problem_file((kFiles / GetParam()).string());
  search::BuiltinProposerConfig config;
  config.sizes = {"bench"};
  config.cost_size = "bench";
  search::BuiltinProposer proposer(p, config);
  auto r = proposer.propose(search::ProposalContext{}, 4, 4);
  int sketches = 0, verified = 0;
  for (const auto& prop : r.proposals) {
    EXPECT_TRUE(validate_schedule(p.context("bench"), prop.schedule).ok) << prop.idea;
    if (prop.idea.find(" sketch: ") == std::string::npos) continue;
    ++sketches;
    // The first sketch that is legal at the small size too computes the problem.
    if (verified == 0 && validate_schedule(p.context("small"), prop.schedule).ok) {
      auto v =
          runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), prop.schedule), "small", 3, 1);
      EXPECT_EQ(v.verdict, runtime::Verdict::ok) << prop.idea << ": " << v.message << v.error.message;
      ++verified;
    }
  }
  if (kNoSketch.count(GetParam())) {
    EXPECT_EQ(sketches, 0) << "a sketch now applies: take the file off kNoSketch";
    return;
  }
  EXPECT_GE(r.proposals.size(), 9u);
  EXPECT_GE(sketches, 1) << "class " << search::problem_class_name(proposer.problem_class());
}

INSTANTIATE_TEST_SUITE_P(KernelBench, FirstRound, ::testing::ValuesIn(kernelbench_files()),
                         kernelbench_tests::file_test_name);

}  // namespace first_round
}  // namespace cusched
