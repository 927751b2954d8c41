// Tensor copies (the Hopper tensor memory accelerator, pipeline engine "tensor") in the
// interpreter: hand-built boxes that hang over their source (zeros there) and boxes with
// the 128-byte swizzle, checked element by element against the layouts the PTX ISA
// gives; the interpreter's refusals of misaligned boxes and of reads before the wait;
// and matmul schedules lowered onto the engine (CUDA-core tiles bit for bit, wgmma tiles
// within TF32 rounding), their CUDA and their launch plan's tensor maps.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "problems/problem_file.h"
#include "tests/interp/ir_test_support.h"
#include "tests/padded_conv_steps.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

using namespace cusched::test;

BufferSpec tensor(const std::string& name, std::vector<int64_t> shape, BufferRole role) {
  BufferSpec b = buffer(name, DType::f32, 1, role);
  b.shape = std::move(shape);
  return b;
}

// One block of `threads` threads: thread 0 initialises an mbarrier, announces `announced`
// bytes and tensor-copies a box of G (shape `source`) at `at` into the shared array S
// (aligned to `alignment` bytes, the box starting at element `first`); after the wait
// (when `wait`) thread t stores S[first + read(t)] into Y[t].
LoweredProgram box_program(std::vector<int64_t> source, std::vector<int64_t> box, std::vector<int64_t> at,
                           int64_t swizzle, int64_t announced, bool wait, const std::function<Expr(Expr)>& read,
                           int64_t alignment = 128, int64_t first = 0) {
  int64_t n = 1;
  for (auto e : box) n *= e;
  std::vector<Expr> coords;
  for (auto c : at) coords.push_back(make_int(c));
  Expr t = var("t"), tid = make_var("tid");
  std::vector<Stmt> body = {
      make_if(tid == make_int(0), make_mbarrier_init("bar", make_int(0), 1)), make_barrier(),
      make_if(tid == make_int(0), make_block({make_mbarrier_expect("bar", make_int(0), make_int(announced)),
                                              make_tensor_copy("S", make_int(first), "G", coords, box, swizzle, "G_map",
                                                               "bar", make_int(0))}))};
  if (wait) body.push_back(make_mbarrier_wait("bar", make_int(0), make_int(0)));
  body.push_back(bound("t", n, GpuAxis::ThreadX, make_store("Y", t, load("S", make_int(first) + read(t)))));
  Stmt k = make_aligned_allocate("S", MemScope::Shared, DType::f32, first + n, alignment,
                                 make_allocate("bar", MemScope::Shared, DType::i64, 1, make_block(body)));
  return program({tensor("G", source, BufferRole::Input), tensor("Y", {n}, BufferRole::Output)},
                 {kernel("box", {1, 1, 1}, {n, 1, 1}, {"G", "Y"}, k)});
}

HostBuffers source_values(int64_t elements) {
  HostBuffers b;
  for (int64_t i = 0; i < elements; ++i) b["G"].push_back(1.0 + static_cast<double>(i));
  return b;
}

Expr plain(Expr t) { return t; }

TEST(TensorCopy, ABoxOverTheSourcesEdgesReadsZerosOutsideIt) {
  // An 8 x 8 box of a 6 x 12 source at rows -2 .. 5 and columns 8 .. 15.
  HostBuffers b = source_values(6 * 12);
  interpret(box_program({6, 12}, {8, 8}, {-2, 8}, 0, 8 * 8 * 4, true, plain), b);
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      const int64_t row = r - 2, col = c + 8;
      const double want = row >= 0 && row < 6 && col < 12 ? 1.0 + static_cast<double>(row * 12 + col) : 0.0;
      EXPECT_EQ(b["Y"][r * 8 + c], want) << "box element " << r << ", " << c;
    }
}

TEST(TensorCopy, TheSwizzleMovesEachChunkToItsXorWithTheRow) {
  // Rows of 32 floats (128 bytes): element (r, c) lands in 16-byte chunk (c / 4) ^ (r % 8)
  // of its row. Reading through that address gives the source back.
  auto swizzled = [](Expr t) {
    Expr r = t / make_int(32), c = t % make_int(32);
    return r * make_int(32) + bit_xor(c / make_int(4), r % make_int(8)) * make_int(4) + c % make_int(4);
  };
  HostBuffers b = source_values(16 * 32);
  interpret(box_program({16, 32}, {16, 32}, {0, 0}, 128, 16 * 32 * 4, true, swizzled, 1024), b);
  for (int64_t i = 0; i < 16 * 32; ++i) ASSERT_EQ(b["Y"][i], 1.0 + static_cast<double>(i)) << "element " << i;
  // Read plainly, row 1's first chunk holds its second chunk's elements.
  HostBuffers p = source_values(16 * 32);
  interpret(box_program({16, 32}, {16, 32}, {0, 0}, 128, 16 * 32 * 4, true, plain, 1024), p);
  EXPECT_EQ(p["Y"][32], 1.0 + 32 + 4);
}

TEST(TensorCopy, MisalignedDestinationsAreErrors) {
  HostBuffers b = source_values(6 * 12);
  std::string message;
  // 128 bytes unswizzled: element 4 is 16 bytes in.
  EXPECT_EQ(
      error_code([&] { interpret(box_program({6, 12}, {8, 8}, {0, 0}, 0, 256, true, plain, 128, 4), b); }, &message),
      "tensor-copy-alignment")
      << message;
  // 1024 bytes swizzled: an array aligned to 128 only.
  HostBuffers s = source_values(16 * 32);
  EXPECT_EQ(error_code([&] { interpret(box_program({16, 32}, {16, 32}, {0, 0}, 128, 2048, true, plain, 128), s); }),
            "tensor-copy-alignment");
}

// The accelerator reads box rows from 16-byte aligned addresses: a box whose rows start
// at column 6 or -1 of f32 rows (24 or -4 bytes) is an error; at -4 (-16 bytes) it is not.
TEST(TensorCopy, RowsStartingOffTheSixteenByteGridAreErrors) {
  HostBuffers b = source_values(6 * 12);
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(box_program({6, 12}, {8, 8}, {0, 6}, 0, 256, true, plain), b); }, &message),
            "tensor-copy-alignment");
  EXPECT_NE(message.find("column 6"), std::string::npos) << message;
  EXPECT_EQ(error_code([&] { interpret(box_program({6, 12}, {8, 8}, {-2, -1}, 0, 256, true, plain), b); }),
            "tensor-copy-alignment");
  interpret(box_program({6, 12}, {8, 8}, {-2, -4}, 0, 256, true, plain), b);
  EXPECT_EQ(b["Y"][2 * 8 + 4], 1.0);  // box (2, 4) is source (0, 0)
  EXPECT_EQ(b["Y"][2 * 8 + 3], 0.0);
}

TEST(TensorCopy, TheBoxIsReadOnlyAfterItsWaitAndItsBytesMustBeAnnounced) {
  HostBuffers b = source_values(6 * 12);
  EXPECT_EQ(error_code([&] { interpret(box_program({6, 12}, {8, 8}, {0, 0}, 0, 256, false, plain), b); }),
            "async-copy-not-waited");
  // The zeros outside the source count: announcing only the bytes inside it leaves the
  // copy with more bytes than announced.
  EXPECT_EQ(error_code([&] { interpret(box_program({6, 12}, {8, 8}, {-2, 8}, 0, 6 * 4 * 4, true, plain), b); }),
            "mbarrier-tx-mismatch");
}

// ---------------------------------------------------------------- lowered schedules

const Sizes kTails{64, 48, 40};  // N and K do not divide the tiles below

// A CUDA-core register tile of 32 x 16 points, K staged 8 at a time, pipelined on `engine`.
nlohmann::json register_tile(int depth, const std::string& engine) {
  nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 32, "y_factor": 16},
    {"op": "split", "stage": "C", "loop": "ii", "factor": 4, "outer": "it", "inner": "ir"},
    {"op": "split", "stage": "C", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "it", "ji", "ki", "ir"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "it", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko"}
  ])");
  steps.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", depth}, {"engine", engine}});
  return steps;
}

// A wgmma tile of 64 x 64, K staged 32 at a time, A swizzled, pipelined 4 deep on the
// tensor engine.
nlohmann::json wgmma_tile() {
  return nlohmann::json::parse(R"([
    {"op": "split", "stage": "C", "loop": "i", "factor": 64, "outer": "no", "inner": "ni"},
    {"op": "split", "stage": "C", "loop": "j", "factor": 64, "outer": "mo", "inner": "mi"},
    {"op": "split", "stage": "C", "loop": "k", "factor": 32, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["no", "mo", "ko", "mi", "ni", "ki"]},
    {"op": "bind", "stage": "C", "loop": "no", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "mo", "axis": "blockIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "at": "ko", "scope": "shared", "swizzle": true},
    {"op": "cache_read", "stage": "C", "source": "B", "at": "ko", "scope": "shared"},
    {"op": "tensor_core", "stage": "C", "shape": "m64nNk8", "precision": "tf32"},
    {"op": "pipeline", "stage": "C", "loop": "ko", "depth": 4, "engine": "tensor"}
  ])");
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TensorCopyPipeline, RegisterTilesMatchTheF32MatmulWithTailsOnEveryDepth) {
  for (int depth : {2, 3}) {
    SCOPED_TRACE(depth);
    LoweredProgram p = lowered_matmul(kTails, register_tile(depth, "tensor"));
    const std::string ir = print_ir(p);
    // Two sources, each copied once per iteration: depth - 1 before the loop and one in it.
    EXPECT_EQ(occurrences(ir, "<- tensor"), 2u * static_cast<size_t>(depth)) << ir;
    EXPECT_EQ(occurrences(ir, "mbarrier_wait("), 1u);
    HostBuffers b = matmul_inputs(kTails);
    interpret(p, b);
    const std::vector<double> want = f32_matmul(kTails, b);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(b["C"][i], want[i]) << "element " << i;
  }
}

TEST(TensorCopyPipeline, WgmmaTilesReadTheSwizzledBoxesAndMatchTheOtherEngines) {
  LoweredProgram p = lowered_matmul(kTails, wgmma_tile());
  HostBuffers got = matmul_inputs(kTails);
  interpret(p, got);
  nlohmann::json steps = wgmma_tile();
  steps.back()["engine"] = "cp.async";
  HostBuffers want = matmul_inputs(kTails);
  interpret(lowered_matmul(kTails, steps), want);
  // The same products in the same order: the same bits.
  EXPECT_EQ(got["C"], want["C"]);
  const std::vector<double> f32 = f32_matmul(kTails, got);
  for (size_t i = 0; i < f32.size(); ++i) ASSERT_NEAR(got["C"][i], f32[i], 1e-2 * (1 + std::fabs(f32[i]))) << i;
}

TEST(TensorCopyPipeline, WithAWgmmaStepInFlightTheCopiesRunDepthMinusTwoAhead) {
  // 4 deep with one k-step in flight: iterations 0 and 1 are copied before the loop (not
  // 0, 1 and 2), so no copy refills the buffer that the k-step in flight reads.
  const std::string ir = print_ir(lowered_matmul(kTails, wgmma_tile()));
  EXPECT_EQ(occurrences(ir, "<- tensor A box 64x32 at ((C_no * 64), 0)"), 1u) << ir;
  EXPECT_EQ(occurrences(ir, "<- tensor A box 64x32 at ((C_no * 64), 32)"), 1u) << ir;
  EXPECT_EQ(occurrences(ir, "<- tensor A box 64x32 at ((C_no * 64), 64)"), 0u) << ir;
  // Without a k-step in flight (2 deep) the copies run depth - 1 = 1 ahead.
  nlohmann::json two = wgmma_tile();
  two.back()["depth"] = 2;
  const std::string ir2 = print_ir(lowered_matmul(kTails, two));
  EXPECT_EQ(occurrences(ir2, "<- tensor A box 64x32 at ((C_no * 64), 0)"), 1u) << ir2;
  EXPECT_EQ(occurrences(ir2, "<- tensor A box 64x32 at ((C_no * 64), 32)"), 0u) << ir2;
}

TEST(TensorCopyPipeline, TheLaunchPlanNamesEachSourcesMapAndTheKernelTakesIt) {
  LoweredProgram p = lowered_matmul(kTails, wgmma_tile());
  KernelBundle b = make_bundle(p);
  ASSERT_EQ(b.launches.size(), 1u);
  const auto& maps = b.launches[0].tensor_maps;
  ASSERT_EQ(maps.size(), 2u);
  // A's box: 64 rows of the block's tile by 32 of K, swizzled; B's: 32 of K by 64 columns.
  EXPECT_EQ(maps[0], (TensorMapSpec{"A_shared_map", "A", {64, 32}, 128}));
  EXPECT_EQ(maps[1], (TensorMapSpec{"B_shared_map", "B", {32, 64}, 0}));
  EXPECT_EQ(KernelBundle::from_json(b.to_json()).launches[0].tensor_maps, maps);
  EXPECT_NE(b.source.find("const __grid_constant__ cusched::TensorMap A_shared_map"), std::string::npos);
  EXPECT_NE(b.source.find("cusched::tensor_copy_2d("), std::string::npos);
  // Coordinates go to the instruction innermost first: K's, then the row's.
  EXPECT_NE(b.source.find("A_shared_map, 0, C_no * 64"), std::string::npos) << b.source;
}

TEST(TensorCopyPipeline, RegionsOverTheBoxLimitAreALoweringError) {
  // B's region at ko is 8 rows of all 512 columns: more than 256 along a dimension.
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "split", "stage": "C", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["i", "ko", "j", "ki"]},
    {"op": "bind", "stage": "C", "loop": "i", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "j", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko"},
    {"op": "pipeline", "stage": "C", "loop": "ko", "depth": 2, "engine": "tensor"}
  ])");
  std::string message;
  EXPECT_EQ(error_code([&] { lowered_matmul({4, 512, 16}, steps); }, &message), "tensor-copy-box");
  EXPECT_NE(message.find("256"), std::string::npos) << message;
  // At 256 columns the same schedule lowers and matches the f32 matmul.
  const Sizes fits{4, 256, 16};
  LoweredProgram p = lowered_matmul(fits, steps);
  HostBuffers b = matmul_inputs(fits);
  interpret(p, b);
  const std::vector<double> want = f32_matmul(fits, b);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(b["C"][i], want[i]) << "element " << i;
}

// Interprets the lowered padded_relu_conv at its small size (N x C x H x W = 2 x 4 x 8 x
// 16, 8 output channels) and compares Y with the convolution computed here.
void expect_padded_conv_matches(const LoweredProgram& lp) {
  const int64_t N = 2, C = 4, H = 8, W = 16, O = 8;
  HostBuffers b;
  for (int64_t i = 0; i < N * C * H * W; ++i)
    b["X"].push_back(static_cast<float>(std::sin(0.7 * static_cast<double>(i))));
  for (int64_t i = 0; i < O * C * 9; ++i)
    b["weight"].push_back(static_cast<float>(0.2 * std::cos(0.3 * static_cast<double>(i))));
  interpret(lp, b);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x) {
          double want = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t yy = y + kh - 1, xx = x + kw - 1;
                if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                want += std::max(b["X"][((n * C + c) * H + yy) * W + xx], 0.0) *
                        b["weight"][((o * C + c) * 3 + kh) * 3 + kw];
              }
          ASSERT_NEAR(b["Y"][((n * O + o) * H + y) * W + x], want, 1e-5) << n << " " << o << " " << y << " " << x;
        }
}

// A convolution padded by one on every side (tests/legality/problems/padded_relu_conv.json):
// each iteration's rows start at column -1, 4 bytes off the grid the accelerator reads
// rows from, so the copy starts at column -4 with a box 3 columns wider, and the stage
// reads 3 columns into each shared row. It matches the convolution computed here.
TEST(TensorCopyPipeline, PaddedRowsAreCopiedFromTheAlignedColumnBeforeThem) {
  const Problem p = load_problem_file(padded_conv_file());
  LoweredProgram lp = lower(Schedule::from_json(p.context("small"), padded_conv_tensor_steps()), p.name);
  KernelBundle bundle = make_bundle(lp);
  ASSERT_EQ(bundle.launches.back().tensor_maps.size(), 1u);
  // N x C x H x W = 2 x 4 x 8 x 16; the box: 1 image, 2 channels, 10 rows, 16 + 2 + 3 + 3 columns.
  EXPECT_EQ(bundle.launches.back().tensor_maps[0].box, (std::vector<int64_t>{1, 2, 10, 24}));
  EXPECT_NE(bundle.source.find("R_shared_map, -4, -1, 0, Y_n"), std::string::npos) << bundle.source;
  expect_padded_conv_matches(lp);
}

// Column tiles of 8 start each block's rows at 8 b - 1, a fixed 3 floats off the grid:
// copied from 8 b - 4. Tiles of 6 start them at 6 b - 1, off the grid by an amount that
// changes with b: refused at lowering, naming the fix.
TEST(TensorCopyPipeline, RowsWhoseOffsetFromTheGridVariesAreALoweringError) {
  const Problem p = load_problem_file(padded_conv_file());
  auto steps = [](int tile) { return padded_conv_tensor_steps(tile); };
  const LoweredProgram lp = lower(Schedule::from_json(p.context("small"), steps(8)), p.name);
  const std::string cuda = make_bundle(lp).source;
  EXPECT_NE(cuda.find("R_shared_map, Y_owo * 8 - 4, -1,"), std::string::npos) << cuda;
  expect_padded_conv_matches(lp);
  std::string message;
  EXPECT_EQ(error_code([&] { lower(Schedule::from_json(p.context("small"), steps(6)), p.name); }, &message),
            "tensor-copy-alignment");
  EXPECT_NE(message.find("16-byte grid"), std::string::npos) << message;
}

TEST(TensorCopyPipeline, TheF64ReferenceHasNoTensorCopies) {
  EXPECT_EQ(error_code([&] { emit_cuda(lowered_matmul(kTails, register_tile(2, "tensor")), {.reference_f64 = true}); }),
            "tensor-copy-unsupported");
}

}  // namespace
}  // namespace cusched
