// cache_read and cache_write: the staged copies and accumulator scopes, and each error.
#include "tests/dsl/schedule_test_support.h"

namespace cusched::testing {
namespace {

const char* kSplitK = R"({"op": "split", "stage": "C", "loop": "k", "factor": 8})";

json with_split_k(const std::string& rest) { return json::parse(std::string("[") + kSplitK + "," + rest + "]"); }

TEST(CacheRead, RecordsEachStagedCopy) {
  Schedule s = build(problem_context("matmul"), with_split_k(R"(
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 4},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "swizzle": true, "name": "Bs"})"));
  const auto& reads = s.state().stage("C").cache_reads;
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].source, "A");
  EXPECT_EQ(reads[0].name, "A_shared");  // the default name
  EXPECT_EQ(reads[0].scope, MemScope::Shared);
  EXPECT_EQ(reads[0].at_loop, "ko");
  EXPECT_EQ(reads[0].pad, 4);
  EXPECT_FALSE(reads[0].swizzle);
  EXPECT_EQ(reads[1].name, "Bs");
  EXPECT_TRUE(reads[1].swizzle);
  EXPECT_EQ(reads[1].pad, 0);
  EXPECT_EQ(s.steps()[1]["name"], "A_shared");
  EXPECT_EQ(s.steps()[2]["pad"], 0);
  EXPECT_EQ(reads[0].innermost, -1) << "the default keeps the source's order";
  EXPECT_EQ(s.steps()[1]["innermost"], -1);
  Schedule t = build(problem_context("matmul"), with_split_k(R"(
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "innermost": 0})"));
  EXPECT_EQ(t.state().stage("C").cache_reads[0].innermost, 0);
}

TEST(CacheRead, StagesAStageIntoRegisters) {
  Schedule s = build(problem_context("softmax"), json::parse(R"([
    {"op": "cache_read", "stage": "Y", "source": "S", "scope": "register", "at": "i"}])"));
  ASSERT_EQ(s.state().stage("Y").cache_reads.size(), 1u);
  EXPECT_EQ(s.state().stage("Y").cache_reads[0].name, "S_register");
}

TEST(CacheRead, KeepsTheLastCopyStepsInRegistersWhenAsked) {
  Schedule s = build(problem_context("matmul"),
                     with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared",
                                                                 "at": "ko", "registers": 2},
                                                                {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko"})"));
  const auto& reads = s.state().stage("C").cache_reads;
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].registers, 2);
  EXPECT_EQ(reads[1].registers, 0) << "the default keeps the whole copy shared";
}

TEST(CacheReadErrors, EachError) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "X", "scope": "shared", "at": "ko"})"),
                    1, "cache_read", "cache-read-not-read");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "k"})"),
                    1, "cache_read", "unknown-loop");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": -1})"), 1,
      "cache_read", "bad-padding");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko",
                                          "pad": 4, "swizzle": true})"),
                    1, "cache_read", "pad-and-swizzle");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
                                         {"op": "cache_read", "stage": "C", "source": "A", "scope": "register", "at": "ki"})"),
                    2, "cache_read", "cache-read-twice");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "registers": -1})"),
      1, "cache_read", "bad-registers");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "register", "at": "ko", "registers": 1})"),
      1, "cache_read", "registers-not-shared");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "registers": 1,
                                          "swizzle": true})"),
      1, "cache_read", "registers-padded");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "registers": 17})"),
      1, "cache_read", "registers-too-many");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "name": "B"})"),
      1, "cache_read", "duplicate-name");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "name": "C"})"),
      1, "cache_read", "duplicate-name");
  // Two copies in one stage cannot share a name.
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "name": "T"},
                                         {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "name": "T"})"),
      2, "cache_read", "duplicate-name");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "name": "A s"})"),
      1, "cache_read", "bad-name");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "global", "at": "ko"})"),
                    1, "cache_read", "bad-choice");
  // innermost names one of the source's dimensions, of a shared copy in the source's storage.
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "innermost": 2})"),
      1, "cache_read", "bad-innermost");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "innermost": -2})"),
      1, "cache_read", "bad-innermost");
  expect_step_error(
      ctx,
      with_split_k(
          R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "register", "at": "ko", "innermost": 0})"),
      1, "cache_read", "innermost-not-shared");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "innermost": 0,
                                          "registers": 1})"),
      1, "cache_read", "registers-transposed");
  expect_step_error(
      ctx,
      with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "swizzle": 1})"),
      1, "cache_read", "mistyped-argument");
}

TEST(CacheReadErrors, CopyLoopCannotBeRemovedAfterwards) {
  auto ctx = problem_context("matmul");
  expect_step_error(ctx,
                    with_split_k(R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
                                         {"op": "split", "stage": "C", "loop": "ko", "factor": 2})"),
                    2, "split", "loop-in-use");
  expect_step_error(ctx, json::parse(R"([
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "register", "at": "j"},
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 16, "y_factor": 8}])"),
                    1, "tile", "loop-in-use");
}

TEST(CacheWrite, SetsTheAccumulatorScope) {
  // A shared output tile needs a block loop outermost (a whole-schedule rule).
  Schedule s = build(problem_context("matmul"), json::parse(R"([
    {"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.x"},
    {"op": "cache_write", "stage": "C", "scope": "shared"}])"));
  EXPECT_EQ(s.state().stage("C").cache_write_scope, MemScope::Shared);
  Schedule r =
      build(problem_context("matmul"), json::parse(R"([{"op": "cache_write", "stage": "C", "scope": "register"}])"));
  EXPECT_EQ(r.state().stage("C").cache_write_scope, MemScope::Register);
}

TEST(CacheWriteErrors, EachError) {
  expect_step_error(problem_context("softmax"),
                    json::parse(R"([{"op": "cache_write", "stage": "Y", "scope": "shared"}])"), 0, "cache_write",
                    "cache-write-pointwise");
  expect_step_error(problem_context("matmul"),
                    json::parse(R"([{"op": "cache_write", "stage": "C", "scope": "global"}])"), 0, "cache_write",
                    "bad-choice");
  expect_step_error(problem_context("matmul"), json::parse(R"([{"op": "cache_write", "stage": "C"}])"), 0,
                    "cache_write", "missing-argument");
}

// Scope names meet the code only at the JSON edge: each name reads back to its scope,
// and an unknown name is a structured error.
TEST(MemScopeNames, ReadBackAndUnknownNamesAreErrors) {
  for (MemScope s : {MemScope::Global, MemScope::Shared, MemScope::Register})
    EXPECT_EQ(parse_mem_scope(mem_scope_name(s)), s);
  try {
    parse_mem_scope("texture");
    FAIL() << "texture is not a scope";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unknown-scope");
  }
}

}  // namespace
}  // namespace cusched::testing
