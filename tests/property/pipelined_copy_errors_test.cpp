// The lowering's errors for software-pipelined staged copies (pipeline on a cache_read
// into shared memory): elements that a 4-byte cp.async cannot move, and a bulk copy
// whose source is not a global tensor. Each error is checked next to the nearest
// schedule that lowers, so that the test fails if the error comes from anything other
// than the property named.
#include <optional>

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/problem.h"
#include "tests/property/staged_tile_schedules.h"

namespace cusched {
namespace {

std::optional<Error> lowering_failure(const ScheduleContext& ctx, const nlohmann::json& steps) {
  try {
    lower(Schedule::from_json(ctx, steps), "test");
  } catch (const UserError& e) {
    return e.error();
  }
  return std::nullopt;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// C = A B at 64 x 48 x 40 with operands of type `t`.
ScheduleContext matmul_of(DType t) {
  Size M("M"), N("N"), K("K");
  Tensor A("A", t, {M, K}), B("B", t, {K, N});
  Var i("i", M), j("j", N);
  RVar k("k", K);
  Func C = compute("C", {i, j}, sum(k, A(i, k) * B(k, j)));
  ScheduleContext c;
  c.pipeline = Pipeline({C});
  c.sizes = {{"M", 64}, {"N", 48}, {"K", 40}};
  return c;
}

// A 16 x 16 CUDA-core tile with K steps of 8; A and B staged in shared memory at each
// step and the copies pipelined two deep on `engine`.
nlohmann::json pipelined_tile(const std::string& engine) {
  nlohmann::json s = testing::cuda_core_staged_tile_steps(16, 16);
  s.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 2}, {"engine", engine}});
  return s;
}

TEST(PipelinedCopyErrors, TwoByteElementsCannotBePipelinedWithCpAsync) {
  ASSERT_FALSE(lowering_failure(matmul_of(DType::f32), pipelined_tile("cp.async"))) << "the f32 pipeline must lower";
  for (DType t : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(dtype_name(t));
    auto e = lowering_failure(matmul_of(t), pipelined_tile("cp.async"));
    ASSERT_TRUE(e) << "a pipeline of 2-byte elements was accepted";
    EXPECT_EQ(e->code, "pipeline-element-size");
    EXPECT_TRUE(mentions(e->message, "2-byte elements")) << e->message;
    EXPECT_TRUE(mentions(e->hint, "drop the pipeline step")) << e->hint;
  }
  // Without the pipeline the same 2-byte copies are made synchronously.
  nlohmann::json synchronous = pipelined_tile("cp.async");
  synchronous.erase(synchronous.size() - 1);
  EXPECT_FALSE(lowering_failure(matmul_of(DType::f16), synchronous));
}

// softmax (small: 8 x 300): S(i) = sum(k, exp(X(i, k) - M(i))) with 4 rows per block, one
// thread per row, k in steps of 4; S stages M in shared memory at each step of k and
// pipelines the copy. With `m_inside`, M is computed inside S's block loop, so the
// staged copy reads M from shared memory rather than from a global tensor.
nlohmann::json staged_row_maximum(const std::string& engine, bool m_inside) {
  nlohmann::json s = nlohmann::json::parse(R"([
    {"op": "split", "stage": "S", "loop": "i", "factor": 4, "outer": "io", "inner": "ii"},
    {"op": "split", "stage": "S", "loop": "k", "factor": 4, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "S", "loops": ["io", "ko", "ii", "ki"]},
    {"op": "bind", "stage": "S", "loop": "io", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "S", "loop": "ii", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "S", "source": "M", "scope": "shared", "at": "ko"}
  ])");
  if (m_inside) s.push_back({{"op", "compute_at"}, {"stage", "M"}, {"consumer", "S"}, {"loop", "io"}});
  s.push_back({{"op", "pipeline"}, {"stage", "S"}, {"loop", "ko"}, {"depth", 2}, {"engine", engine}});
  return s;
}

TEST(PipelinedCopyErrors, BulkCopiesNeedAGlobalSource) {
  const ScheduleContext ctx = find_problem("softmax").context("small");
  // M at root is a global scratch tensor: the bulk engine copies it.
  ASSERT_FALSE(lowering_failure(ctx, staged_row_maximum("bulk", false)))
      << "the bulk pipeline from global M must lower";
  auto e = lowering_failure(ctx, staged_row_maximum("bulk", true));
  ASSERT_TRUE(e) << "a bulk copy from a shared-memory producer was accepted";
  EXPECT_EQ(e->code, "bulk-copy-source");
  EXPECT_TRUE(mentions(e->message, "'M'")) << e->message;
  EXPECT_TRUE(mentions(e->hint, "cp.async")) << e->hint;
}

}  // namespace
}  // namespace cusched
