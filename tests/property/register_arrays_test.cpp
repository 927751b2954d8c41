// The lowering refuses per-thread register arrays beyond kMaxRegisterArrayElements: a
// row of softmax's input staged in registers fits at the small size (300 elements) and
// is refused at the bench size (65536 elements per thread).
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "codegen/passes/passes.h"
#include "dsl/schedule.h"
#include "problems/problem.h"

namespace cusched {
namespace {

std::string lowering_error_at(const std::string& size, const nlohmann::json& steps) {
  const Problem& p = find_problem("softmax");
  try {
    lower(Schedule::from_json(p.context(size), steps), p.name);
  } catch (const UserError& e) {
    return e.error().code;
  }
  return "";
}

TEST(RegisterArrays, AWholeRowStagedInRegistersIsRefusedWhereItCannotFit) {
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "i", "factor": 32, "outer": "io", "inner": "it"},
    {"op": "bind", "stage": "Y", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "it", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "register", "at": "it"}])");
  EXPECT_EQ(lowering_error_at("small", steps), "");
  EXPECT_EQ(lowering_error_at("bench", steps), "register-array-too-large");
}

}  // namespace
}  // namespace cusched
