// Staged copies into shared memory as the lowering makes them, run in the interpreter:
// synchronous copies 16 bytes at a time where alignment is provable, 16-byte cp.async
// in software pipelines, and pipelines on the Hopper bulk copy engine tracked by
// mbarriers. Results are compared with f32 matmuls computed here in k order, which is
// the order every thread of the tile accumulates in. Hand-built IR checks what the
// interpreter reports for bulk copies used the wrong way.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

// A CUDA-core register tile: blocks of bm x bn points, 4 rows per thread, K staged bk
// at a time in shared memory (rows padded by `pad`), optionally pipelined.
nlohmann::json tile_steps(int bm, int bn, int bk, int pad, int depth = 0, const std::string& engine = "cp.async") {
  nlohmann::json s = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 0, "y_factor": 0},
    {"op": "split", "stage": "C", "loop": "ii", "factor": 4, "outer": "it", "inner": "ir"},
    {"op": "split", "stage": "C", "loop": "k", "factor": 0, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "it", "ji", "ki", "ir"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "it", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 0},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko", "pad": 0}
  ])");
  s[0]["x_factor"] = bm;
  s[0]["y_factor"] = bn;
  s[2]["factor"] = bk;
  s[8]["pad"] = pad;
  s[9]["pad"] = pad;
  if (depth > 0)
    s.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", depth}, {"engine", engine}});
  return s;
}

// Runs the program and checks every element of C against the f32 matmul.
void expect_exact(Sizes z, const LoweredProgram& p) {
  HostBuffers b = matmul_inputs(z);
  interpret(p, b);
  const std::vector<double> want = f32_matmul(z, b);
  ASSERT_EQ(b["C"].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(b["C"][i], want[i]) << "element " << i;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const Sizes kDividing{64, 48, 40};

TEST(StagedCopy, SynchronousCopiesMove16BytesWhenAligned) {
  LoweredProgram p = lowered_matmul(kDividing, tile_steps(32, 16, 8, 0));
  const std::string ir = print_ir(p);
  EXPECT_EQ(count(ir, "[vectorized]"), 2u) << ir;  // one chunk loop per copy
  // 256 and 128 floats over 128 threads: one chunk of A, at most one of B per thread, unrolled.
  EXPECT_EQ(count(ir, "[unrolled]"), 2u) << ir;
  EXPECT_NE(emit_cuda(p).find("float4"), std::string::npos);
  expect_exact(kDividing, p);
}

TEST(StagedCopy, UnalignedRowsFallBackToScalarCopiesWithTheSameResult) {
  // A row pitch of 9 floats cannot hold 16-byte chunks.
  LoweredProgram p = lowered_matmul(kDividing, tile_steps(32, 16, 8, 1));
  EXPECT_EQ(count(print_ir(p), "[vectorized]"), 0u) << print_ir(p);
  expect_exact(kDividing, p);
}

TEST(StagedCopy, TailsOfNonDividingTilesAreSkippedChunkByChunk) {
  // 32 x 32 tiles over N = 48 and K steps of 16 over K = 40: the last tiles hang over
  // the sources by whole chunks, which are not copied.
  LoweredProgram p = lowered_matmul(kDividing, tile_steps(32, 32, 16, 0));
  EXPECT_EQ(count(print_ir(p), "[vectorized]"), 2u);
  expect_exact(kDividing, p);
  // K = 42: A's rows are no longer a multiple of 4 floats, so A is copied element by
  // element while B still moves 16 bytes at a time.
  const Sizes odd{64, 48, 42};
  LoweredProgram q = lowered_matmul(odd, tile_steps(32, 32, 16, 0));
  EXPECT_EQ(count(print_ir(q), "[vectorized]"), 1u) << print_ir(q);
  expect_exact(odd, q);
}

TEST(StagedCopy, PipelinedCopiesUse16ByteCpAsync) {
  LoweredProgram p = lowered_matmul(kDividing, tile_steps(32, 16, 8, 0, 3));
  const std::string ir = print_ir(p);
  EXPECT_EQ(count(ir, "(16 bytes)"), 6u) << ir;  // two copies, issued before the loop twice and in it once
  EXPECT_NE(emit_cuda(p).find("cusched::cp_async_16("), std::string::npos);
  expect_exact(kDividing, p);
  LoweredProgram tails = lowered_matmul(kDividing, tile_steps(32, 32, 16, 0, 2));
  EXPECT_EQ(count(print_ir(tails), "(16 bytes)"), 4u);
  expect_exact(kDividing, tails);
  LoweredProgram scalar = lowered_matmul(kDividing, tile_steps(32, 16, 8, 1, 2));
  EXPECT_EQ(count(print_ir(scalar), "(16 bytes)"), 0u);
  expect_exact(kDividing, scalar);
}

// cache_read innermost 0 lays B's copy out transposed (its k dimension innermost): each
// element lands at column k of row j, the copy moving one element at a time, padded or
// swizzled along k, synchronous or pipelined, with tails; every read goes through the same
// layout, so the product is exact. The tensor copy engines, which move the source's own
// rows, refuse it.
TEST(StagedCopy, TransposedCopiesLayTheNamedDimensionInnermost) {
  auto transposed = [](nlohmann::json s, int pad, bool swizzle) {
    s[9]["innermost"] = 0;
    s[9]["pad"] = swizzle ? 0 : pad;
    s[9]["swizzle"] = swizzle;
    return s;
  };
  for (int depth : {0, 3})
    for (const auto& [pad, swizzle] : std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {0, true}}) {
      SCOPED_TRACE("depth " + std::to_string(depth) + " pad " + std::to_string(pad) + (swizzle ? " swizzled" : ""));
      LoweredProgram p = lowered_matmul(kDividing, transposed(tile_steps(32, 16, 8, 0, depth), pad, swizzle));
      const std::string ir = print_ir(p);
      // Only A moves 16 bytes at a time: 3 cp.async copies in the pipeline, 1 vectorized loop synchronously.
      EXPECT_EQ(count(ir, depth > 0 ? "(16 bytes)" : "[vectorized]"), depth > 0 ? 3u : 1u) << ir;
      // B's region is 8 (k) x 16 (j): padded by one, the transposed copy has 16 rows of 9
      // (8 rows of 17 in the source's order).
      if (pad == 1) {
        EXPECT_EQ(count(ir, "allocate B_shared: f32[" + std::to_string(16 * 9 * std::max(depth, 1)) + "]"), 1u) << ir;
      }
      expect_exact(kDividing, p);
      const Sizes odd{64, 50, 42};  // tails in every tile dimension
      expect_exact(odd, lowered_matmul(odd, transposed(tile_steps(32, 16, 8, 0, depth), pad, swizzle)));
    }
  for (const char* engine : {"bulk", "tensor"}) {
    try {
      lowered_matmul(kDividing, transposed(tile_steps(32, 16, 8, 0, 2, engine), 0, false));
      ADD_FAILURE() << engine << " copied a transposed region";
    } catch (const UserError& e) {
      EXPECT_EQ(e.error().code, "transposed-copy-engine") << engine;
      EXPECT_NE(e.error().hint.find("cp.async"), std::string::npos);
    }
  }
}

TEST(StagedCopy, BulkPipelinesOfDepthTwoAndThreeMatchTheMatmul) {
  for (int depth : {2, 3}) {
    SCOPED_TRACE(depth);
    LoweredProgram p = lowered_matmul(kDividing, tile_steps(32, 16, 8, 0, depth, "bulk"));
    const std::string ir = print_ir(p);
    EXPECT_EQ(count(ir, "mbarrier_init("), 1u) << ir;
    EXPECT_EQ(count(ir, "mbarrier_wait("), 1u);
    EXPECT_EQ(count(ir, "<- bulk"), 2u * static_cast<size_t>(depth));
    expect_exact(kDividing, p);
  }
}

TEST(StagedCopy, BulkPipelinesCopyOnlyTheRowsInsideTheSource) {
  // Tails in both operands: B's last column tile covers 16 of its 32 columns, A's last
  // K step 8 of its 16; the announced bytes must match the shortened rows.
  for (int depth : {2, 3}) {
    SCOPED_TRACE(depth);
    expect_exact(kDividing, lowered_matmul(kDividing, tile_steps(32, 32, 16, 0, depth, "bulk")));
  }
  // M = 40 with 32-row tiles: rows of A past the source are skipped.
  const Sizes rows{40, 48, 40};
  expect_exact(rows, lowered_matmul(rows, tile_steps(32, 16, 8, 0, 2, "bulk")));
}

// A tensor-core tile: blocks of bm x bn, warps of wm x wn, K staged bk at a time.
nlohmann::json tensor_core_steps(int bm, int bn, int wm, int wn, int bk) {
  return tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {bm, bn, wm, wn, bk});
}

TEST(StagedCopy, TensorCoreTilesGiveTheSameResultWithEveryCopyEngine) {
  // Dividing tiles, and 128 x 128 tiles with K steps of 16 that overhang 64 x 48 x 40.
  for (auto shape : {std::array<int, 5>{32, 16, 16, 8, 8}, std::array<int, 5>{128, 128, 64, 32, 16}}) {
    const nlohmann::json sync = tensor_core_steps(shape[0], shape[1], shape[2], shape[3], shape[4]);
    HostBuffers want = matmul_inputs(kDividing);
    interpret(lowered_matmul(kDividing, sync), want);
    // The synchronous tile itself is a TF32 product: within TF32 rounding of the f32 one.
    const std::vector<double> f32 = f32_matmul(kDividing, want);
    for (size_t i = 0; i < f32.size(); ++i) ASSERT_NEAR(want["C"][i], f32[i], 1e-2 * (1 + std::fabs(f32[i]))) << i;
    for (const char* engine : {"cp.async", "bulk"}) {
      SCOPED_TRACE(engine);
      nlohmann::json steps = sync;
      steps.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 2}, {"engine", engine}});
      LoweredProgram p = lowered_matmul(kDividing, steps);
      // The pipeline is really there: its copies are asynchronous or bulk copies.
      EXPECT_GT(count(print_ir(p), std::string(engine) == "bulk" ? "<- bulk" : "<- async"), 0u);
      HostBuffers got = matmul_inputs(kDividing);
      interpret(p, got);
      EXPECT_EQ(got["C"], want["C"]);
    }
  }
}

TEST(StagedCopy, BulkCopiesOfUnalignedRowsAreALoweringError) {
  try {
    lowered_matmul(kDividing, tile_steps(32, 16, 8, 1, 2, "bulk"));
    ADD_FAILURE() << "a pitch of 9 floats was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "bulk-copy-alignment");
    EXPECT_NE(e.error().hint.find("cp.async"), std::string::npos);
  }
}

// 64 threads; thread 0 initialises mbarrier bar[0], announces `announced` bytes and
// bulk-copies `copied` bytes of G into S; then every thread (after the wait, when
// `wait`) reads S[t].
LoweredProgram bulk_program(int64_t announced, int64_t copied, bool wait, int64_t src_first = 0) {
  Expr t = var("t"), tid = make_var("tid");
  std::vector<Stmt> body = {
      make_if(tid == make_int(0), make_mbarrier_init("bar", make_int(0), 1)), make_barrier(),
      make_if(tid == make_int(0), make_block({make_mbarrier_expect("bar", make_int(0), make_int(announced)),
                                              make_bulk_copy("S", make_int(0), load("G", make_int(src_first)),
                                                             make_int(copied), "bar", make_int(0))}))};
  if (wait) body.push_back(make_mbarrier_wait("bar", make_int(0), make_int(0)));
  body.push_back(bound("t", 64, GpuAxis::ThreadX, make_store("Y", t, load("S", t))));
  Stmt k = make_allocate("S", MemScope::Shared, DType::f32, 64,
                         make_allocate("bar", MemScope::Shared, DType::i64, 1, make_block(body)));
  return program({buffer("G", DType::f32, 80, BufferRole::Input), buffer("Y", DType::f32, 64, BufferRole::Output)},
                 {kernel("bulk", {1, 1, 1}, {64, 1, 1}, {"G", "Y"}, k)});
}

HostBuffers bulk_inputs() {
  HostBuffers b;
  for (int i = 0; i < 80; ++i) b["G"].push_back(i * 0.25);
  return b;
}

TEST(StagedCopy, BulkCopiedDataIsVisibleAfterTheWait) {
  HostBuffers b = bulk_inputs();
  interpret(bulk_program(256, 256, true), b);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b["Y"][i], i * 0.25);
}

TEST(StagedCopy, ReadingABulkCopyBeforeItsWaitIsAnError) {
  HostBuffers b = bulk_inputs();
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(bulk_program(256, 256, false), b); }, &message), "async-copy-not-waited")
      << message;
}

TEST(StagedCopy, AnnouncedBytesMustMatchTheCopiedBytes) {
  HostBuffers b = bulk_inputs();
  // More announced than copied: the phase never completes.
  EXPECT_EQ(error_code([&] { interpret(bulk_program(512, 256, true), b); }), "mbarrier-wait-not-complete");
  // More copied than announced.
  EXPECT_EQ(error_code([&] { interpret(bulk_program(128, 256, true), b); }), "mbarrier-tx-mismatch");
}

TEST(StagedCopy, BulkCopiesMustBeWhole16ByteChunksAt16ByteAddresses) {
  HostBuffers b = bulk_inputs();
  EXPECT_EQ(error_code([&] { interpret(bulk_program(200, 200, true), b); }), "bulk-copy-alignment");
  EXPECT_EQ(error_code([&] { interpret(bulk_program(256, 256, true, 2), b); }), "bulk-copy-alignment");
}

TEST(StagedCopy, MisalignedSixteenByteCpAsyncIsAnError) {
  Expr t = var("t");
  Stmt k = make_allocate(
      "S", MemScope::Shared, DType::f32, 64,
      bound("t", 16, GpuAxis::ThreadX,
            make_block({make_async_copy("S", t * make_int(4), load("G", t * make_int(4) + make_int(1)), 16),
                        make_async_commit(), make_async_wait(0)})));
  LoweredProgram p = program({buffer("G", DType::f32, 80, BufferRole::Input)},
                             {kernel("misaligned", {1, 1, 1}, {16, 1, 1}, {"G"}, k)});
  HostBuffers b = bulk_inputs();
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "async-copy-misaligned");
}

}  // namespace
}  // namespace cusched
