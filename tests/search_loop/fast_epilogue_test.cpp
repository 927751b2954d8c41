// with_fast_epilogue (search/fast_epilogue.h): the TF32 tensor-core sketches of a chain with
// transcendental epilogue math compute it in fast form, legal and lowered to the approximate
// intrinsics; the f32 and 3xTF32 sketches (the kernels a 1e-4 tolerance admits) keep it exact.
#include "search/fast_epilogue.h"

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"

namespace cusched::search {
namespace {

Problem problem_file(const std::string& file) {
  return load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/" + file);
}

std::string tensor_core_precision(const nlohmann::json& steps) {
  for (const auto& s : steps)
    if (s.value("op", "") == "tensor_core") return s.value("precision", "");
  return "";
}

bool math_fast(const nlohmann::json& steps, const std::string& stage) {
  for (const auto& s : steps)
    if (s.value("op", "") == "precision" && s.value("stage", "") == stage && s.value("math", "") == "fast") return true;
  return false;
}

// Level 2 #4, mish(mish(conv(x))): every TF32 sketch's epilogue is fast, lowers to
// fast_softplus and fast_tanh and keeps no exact tanhf; f32 and 3xTF32 sketches keep it exact.
TEST(FastEpilogue, Tf32ConvolutionSketchesComputeMishInFastForm) {
  const Problem p = problem_file("level2/4_Conv2d_Mish_Mish.json");
  const auto sketches = class_sketches(p, classify_pipeline(p.pipeline));
  int tf32 = 0, exact = 0;
  for (const auto& s : sketches) {
    const std::string precision = tensor_core_precision(s.schedule);
    if (precision == "tf32") {
      ++tf32;
      EXPECT_TRUE(math_fast(s.schedule, "Out")) << s.idea;
      EXPECT_NE(s.idea.find("fast form"), std::string::npos) << s.idea;
      ValidationResult v = validate_schedule(p.context("bench"), s.schedule);
      ASSERT_TRUE(v.ok) << s.idea << ": " << v.error.message;
      const std::string src = emit_cuda(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
      EXPECT_NE(src.find("cusched::fast_tanh("), std::string::npos) << s.idea;
      EXPECT_NE(src.find("cusched::fast_softplus("), std::string::npos) << s.idea;
      EXPECT_EQ(src.find("tanhf("), std::string::npos) << s.idea;
    } else {
      ++exact;
      EXPECT_FALSE(math_fast(s.schedule, "Out")) << s.idea;
      EXPECT_EQ(s.idea.find("fast form"), std::string::npos) << s.idea;
    }
  }
  EXPECT_GT(tf32, 0);
  EXPECT_GT(exact, 0);
}

// A TF32 sketch of a chain without such math is left as it is.
TEST(FastEpilogue, ChainsWithoutFastFormsAreUnchanged) {
  const Problem p = problem_file("level2/31_Conv2d_Min_Add_Multiply.json");
  const Sketch s{"a TF32 tile",
                 nlohmann::json::array({{{"op", "tensor_core"}, {"stage", "Conv"}, {"precision", "tf32"}}})};
  const Sketch out = with_fast_epilogue(p, s);
  EXPECT_EQ(out.schedule, s.schedule);
  EXPECT_EQ(out.idea, s.idea);
}

}  // namespace
}  // namespace cusched::search
