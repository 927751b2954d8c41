// Attention (KernelBench level 1 #97) as a fused stage pipeline: with the probabilities
// inlined, the scores and the row statistic are computed at the output's query-tile loop
// (tests/kernelbench/schedules/97_attention_fused.json), so one kernel computes the whole
// pipeline and no (BATCH, HEADS, S, S) intermediate reaches global memory. compute_at
// accepts a host that reads the producer through inlined stages, and refuses the state
// where the stage in between is no longer inlined.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"

namespace cusched {
namespace {

namespace fs = std::filesystem;
const fs::path kSource(CUSCHED_SOURCE_DIR);

Problem attention() {
  return load_problem_file((kSource / "problems/kernelbench/level1/97_ScaledDotProductAttention.json").string());
}

nlohmann::json fused_steps() {
  std::ifstream in(kSource / "tests/kernelbench/schedules/97_attention_fused.json");
  return nlohmann::json::parse(in);
}

TEST(FusedAttention, OneKernelKeepsTheScoresOnChipAtTheBenchSize) {
  const Problem p = attention();
  ValidationResult v = validate_schedule(p.context("bench"), fused_steps());
  ASSERT_TRUE(v.ok) << v.error.code << ": " << v.error.message;
  LoweredProgram program = lower(Schedule::from_json(p.context("bench"), fused_steps()), p.name);
  ASSERT_EQ(program.kernels.size(), 1u);
  for (const char* stage : {"Sc", "Lse", "Pr"})
    EXPECT_EQ(program.find_buffer(stage), nullptr) << stage << " is a global buffer";
  // The unfused baseline stores the scores: the comparison the test rests on.
  LoweredProgram unfused = lower(Schedule::from_json(p.context("bench"), nlohmann::json::array()), p.name);
  EXPECT_NE(unfused.find_buffer("Sc"), nullptr);
}

TEST(FusedAttention, VerifiesInTheInterpreterOnOrdinaryAndAdversarialInputs) {
  const Problem p = attention();
  auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), fused_steps()), "small", 3, 2);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << " " << r.error.code << ": " << r.error.message;
}

TEST(FusedAttention, AStageComputedThroughAnInlinedReaderNeedsThatReaderInlined) {
  const Problem p = attention();
  nlohmann::json steps = fused_steps();
  // Without inlining the probabilities the output does not read the scores.
  nlohmann::json uninlined = steps;
  uninlined.erase(uninlined.begin());
  ValidationResult v = validate_schedule(p.context("small"), uninlined);
  ASSERT_FALSE(v.ok);
  EXPECT_EQ(v.error.code, "illegal-compute-at");
  EXPECT_EQ(v.error.op, "compute_at");
  // Computing the probabilities at root again afterwards leaves the scores at a loop of a
  // stage that no longer reads them: refused at that step.
  steps.push_back({{"op", "compute_root"}, {"stage", "Pr"}});
  v = validate_schedule(p.context("small"), steps);
  ASSERT_FALSE(v.ok);
  EXPECT_EQ(v.error.code, "producer-host-does-not-read");
  EXPECT_EQ(v.error.step, static_cast<int>(steps.size()) - 1);
}

}  // namespace
}  // namespace cusched
