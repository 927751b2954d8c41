// presum sketches (search/presum_sketches.h): where a stage sums a contraction's output, the
// sketches take the sum into the operand, are legal at every size and compute the problem
// in the interpreter.
#include "search/presum_sketches.h"

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/ir.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/candidate_evaluation.h"

namespace cusched::search {
namespace {

Problem kernelbench(const std::string& file) {
  return load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/" + file);
}

// Level 2 #14 and #18 at their bench size and at "mid" (the small size with 128 outputs
// summed per row, so that the sum splits in 64 parts), verified in the interpreter there.
TEST(PresumSketches, AGemmsRowSumIsAColumnSumAndAMatrixVectorProductThatVerify) {
  for (const auto& [file, summed] : std::vector<std::pair<std::string, std::string>>{
           {"level2/14_Gemm_Divide_Sum_Scaling.json", "HID"},
           {"level2/18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp.json", "OUT"}}) {
    Problem p = kernelbench(file);
    p.sizes["mid"] = p.sizes.at("small");
    p.sizes["mid"][summed] = 128;
    const auto sketches = presum_sketches(p);
    ASSERT_EQ(sketches.size(), 2u) << file;
    for (const auto& s : sketches) {
      EXPECT_NE(s.idea.find("presum"), std::string::npos);
      for (const char* size : {"mid", "bench"}) {
        ValidationResult v = validate_schedule(p.context(size), s.schedule);
        ASSERT_TRUE(v.ok) << file << " " << size << ": " << s.idea << ": " << v.error.message;
      }
      // No kernel computes the GEMM: one pass over the weights, not B x HID x IN products.
      LoweredProgram prog = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
      const std::string ir = print_ir(prog);
      EXPECT_EQ(ir.find("buffer Gemm"), std::string::npos) << s.idea;
      EXPECT_EQ(ir.find("Gemm["), std::string::npos) << s.idea;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("mid"), s.schedule), "mid", 3, 1);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << file << ": " << s.idea << ": " << r.message << r.error.message;
    }
  }
}

// A presum schedule does a fraction of the GEMM's products: its bundle says so, and the
// performance floor that rejects a kernel faster than the work allows (under_floor) counts
// that fraction of the problem's FLOPs; a schedule that keeps the GEMM does all of them.
TEST(PresumSketches, TheFloorCountsTheArithmeticThePresumAlgorithmDoes) {
  const Problem p = kernelbench("level2/14_Gemm_Divide_Sum_Scaling.json");
  EvalConfig cfg;
  cfg.size = "bench";
  const double declared = p.flops(p.size("bench"));
  const auto sketches = presum_sketches(p);
  ASSERT_FALSE(sketches.empty());
  const KernelBundle presummed =
      make_bundle(lower(Schedule::from_json(p.context("bench"), sketches[0].schedule), p.name));
  // B x IN x HID products become HID x IN additions and B x IN products.
  EXPECT_LT(presummed.arithmetic_share, 0.01);
  EXPECT_GT(presummed.arithmetic_share, 0.0);
  EXPECT_NEAR(make_eval_request(p, presummed, cfg).floor.flops, declared * presummed.arithmetic_share, 1.0);
  EXPECT_NEAR(KernelBundle::from_json(presummed.to_json()).arithmetic_share, presummed.arithmetic_share, 1e-12);
  const KernelBundle gemm =
      make_bundle(lower(Schedule::from_json(p.context("bench"), baseline_schedule_of(p)), p.name));
  EXPECT_EQ(gemm.arithmetic_share, 1.0);
  EXPECT_EQ(make_eval_request(p, gemm, cfg).floor.flops, declared);
}

// rfactor splits a sum into partial sums and their combination: the same additions, so its
// schedules keep the whole floor.
TEST(PresumSketches, AnRfactorScheduleDoesTheWholeArithmetic) {
  const Problem p = kernelbench("level1/47_Sum_reduction_over_a_dimension.json");
  const nlohmann::json steps = nlohmann::json::array({{{"op", "split"}, {"stage", "Y"}, {"loop", "r"}, {"parts", 64}},
                                                      {{"op", "rfactor"}, {"stage", "Y"}, {"loop", "ro"}}});
  ValidationResult v = validate_schedule(p.context("bench"), steps);
  ASSERT_TRUE(v.ok) << v.error.message;
  EXPECT_EQ(make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name)).arithmetic_share, 1.0);
}

TEST(PresumSketches, NoneWhereNoSumReadsAContraction) {
  EXPECT_TRUE(presum_sketches(kernelbench("level1/1_Square_matrix_multiplication_.json")).empty());
  EXPECT_TRUE(presum_sketches(kernelbench("level1/36_RMSNorm_.json")).empty());
}

}  // namespace
}  // namespace cusched::search
