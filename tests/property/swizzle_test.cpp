// XOR-swizzled shared copies (cache_read swizzle): the copies and every read of them
// agree, with CUDA-core and tensor-core consumers, synchronous and cp.async copies;
// layouts the swizzle cannot serve are lowering errors.
#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

// matmul's tensor-core tile with both sources staged unpadded and swizzled.
nlohmann::json swizzled_tile(TensorCoreTile t) {
  nlohmann::json s = tensor_core_tile_steps("C", "i", "j", "k", "A", 0, "B", 0, "", t);
  for (auto& step : s)
    if (step["op"] == "cache_read") step["swizzle"] = true;
  return s;
}

TEST(Swizzle, TensorCoreTileWithSwizzledCopiesMatchesTheReference) {
  // A rows of 16 floats (4 chunks), B rows of 32 floats (8 chunks); 64 x 48 x 40 has tails.
  auto r = testing::verify_small("matmul", swizzled_tile({32, 32, 16, 16, 16, "tf32"}), 7);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
}

TEST(Swizzle, PipelinedSwizzledCopiesMatchTheReferenceAndUseTheXor) {
  nlohmann::json s = swizzled_tile({32, 32, 16, 16, 16, "tf32", 3});
  auto r = testing::verify_small("matmul", s, 7);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message;
  const Problem& p = find_problem("matmul");
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), s), p.name));
  EXPECT_NE(b.source.find(" ^ "), std::string::npos) << "the shared index is not swizzled";
  // Whole 16-byte chunks stay whole under the swizzle, so the pipeline still copies 16 bytes.
  EXPECT_NE(b.source.find("cp_async_16("), std::string::npos);
}

TEST(Swizzle, SwizzlingChangesTheLayoutNotJustThePadding) {
  const Problem& p = find_problem("matmul");
  nlohmann::json swz = swizzled_tile({32, 32, 16, 16, 16, "tf32"});
  nlohmann::json plain = tensor_core_tile_steps("C", "i", "j", "k", "A", 0, "B", 0, "", {32, 32, 16, 16, 16, "tf32"});
  std::string a = print_ir(lower(Schedule::from_json(p.context("small"), swz), p.name));
  std::string b = print_ir(lower(Schedule::from_json(p.context("small"), plain), p.name));
  EXPECT_NE(a, b);
  EXPECT_NE(a.find("^"), std::string::npos);
  EXPECT_EQ(b.find("^"), std::string::npos);
}

TEST(Swizzle, LayoutsItCannotServeAreErrors) {
  // The bulk engine copies each row contiguously.
  nlohmann::json bulk = swizzled_tile({32, 32, 16, 16, 16, "tf32", 2});
  bulk.back()["engine"] = "bulk";
  EXPECT_EQ(testing::lowering_error("matmul", bulk), "bulk-copy-swizzle");
  // B rows of 24 floats are 6 chunks: no power-of-two XOR keeps them in the row.
  EXPECT_EQ(testing::lowering_error("matmul", swizzled_tile({32, 24, 16, 8, 16, "tf32"})), "swizzle-layout");
}

}  // namespace
}  // namespace cusched
