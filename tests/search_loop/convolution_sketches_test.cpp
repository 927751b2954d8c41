// The convolution class's tiles (search/convolution_tile_sketches.h): the roles read from a
// stage's product (data, weights, columns, channels, channel sum, taps) for plain, 3D,
// depthwise and transposed-phase convolutions; every sketch legal at KernelBench's shapes,
// the tensor-core tiles' staged copies sized by the block's tile (not the whole tensor)
// when the block's loops are fused; register and implicit-GEMM tiles verifying in the
// interpreter.
#include <filesystem>
#include <iostream>
#include <regex>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/candidate_evaluation.h"
#include "search/class_sketches.h"
#include "search/convolution_tile_sketches.h"
#include "search/cost_model.h"
#include "search/sketch_steps.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

const FuncDef& stage(const Problem& p, const std::string& name) {
  const FuncDef* f = p.pipeline.find_stage(name);
  if (!f) throw std::runtime_error("no stage " + name);
  return *f;
}

TEST(ConvolutionRoles, ReadFromTheProductOfA2dConvolution) {
  const Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  auto r = convolution_roles(stage(p, "Conv"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "x");
  EXPECT_EQ(r->weights, "conv_weight");
  EXPECT_EQ(r->columns, "ow");
  EXPECT_EQ(r->channels, "o");
  EXPECT_EQ(r->outer, (std::vector<std::string>{"n", "oh"}));
  EXPECT_EQ(r->channel_sum, "rc");
  EXPECT_EQ(r->taps, (std::vector<std::string>{"kh", "kw"}));
}

TEST(ConvolutionRoles, ADepthwiseConvolutionHasNoChannelsAndNoChannelSum) {
  const Problem p = kernelbench("level1/82_conv_depthwise_2D_square_input_square_kernel.json");
  auto r = convolution_roles(stage(p, "Y"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "X");
  EXPECT_EQ(r->channels, "");
  EXPECT_EQ(r->outer, (std::vector<std::string>{"n", "oc", "oh"}));
  EXPECT_EQ(r->channel_sum, "");
  EXPECT_EQ(r->taps, (std::vector<std::string>{"kh", "kw"}));
}

TEST(ConvolutionRoles, ATransposedConvolutionsPhaseReadsItsWeightsByInputChannelFirst) {
  const Problem p = kernelbench("level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide.json");
  auto r = convolution_roles(stage(p, "ConvT_p1_p1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->weights, "conv_transpose_weight");
  EXPECT_EQ(r->columns, "qw");
  EXPECT_EQ(r->channels, "o");
  EXPECT_EQ(r->channel_sum, "rc");
  EXPECT_EQ(r->taps, (std::vector<std::string>{"th", "tw"}));
  // A stage that is not a product of two loads has no roles.
  EXPECT_FALSE(convolution_roles(stage(p, "ConvT")));
}

// `s` is legal at the small and the bench size of `p`.
void expect_legal_at_both_sizes(const Problem& p, const Sketch& s) {
  for (const char* size : {"small", "bench"})
    EXPECT_TRUE(validate_schedule(p.context(size), s.schedule).ok) << s.idea << " at " << size;
}

TEST(ConvolutionSketches, TensorCoreTilesOfA2dConvolutionStageTilesNotTheWholeInput) {
  const Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  int tensor_core = 0, warpgroup = 0, register_tiles = 0;
  for (const auto& s : legal_sketches(p)) {
    register_tiles += contains(s.idea, "register tiles");
    if (!contains(s.idea, "implicit GEMM")) continue;
    // The block's loops (batch, output row, channel block) are fused onto blockIdx.x: the
    // copies are still one block's tile, and two blocks fit on a multiprocessor (a copy of
    // the whole input's rows would take megabytes); one block of a 4-deep warpgroup tile (or one
    // whose step stages a row's taps).
    const bool wgmma = contains(s.idea, "wgmma");
    (wgmma ? warpgroup : tensor_core) += 1;
    const int64_t blocks =
        wgmma && (contains(s.idea, "4 deep") || contains(s.idea, "3xtf32") || contains(s.idea, "once for every")) ? 1
                                                                                                                  : 2;
    const LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
    for (const auto& l : make_bundle(lowered).launches) EXPECT_LE(l.dynamic_smem_bytes, 227 * 1024 / blocks) << s.idea;
    // Staged once for all taps, the weights' chunk (8 channels x 3 x 3 taps, contiguous in the
    // weight tensor and in the copy) moves 16 bytes per copy although its rows are 3 taps long.
    if (!contains(s.idea, "once for all taps")) continue;
    const std::string cuda = emit_cuda(lowered);
    EXPECT_NE(cuda.find("cp_async_16(&conv_weight_shared["), std::string::npos) << s.idea;
    EXPECT_EQ(cuda.find("cp_async_4(&conv_weight_shared["), std::string::npos) << s.idea;
  }
  EXPECT_EQ(tensor_core, 8) << "TF32 and 3xTF32, staged per tap or once per chunk, each with and without the "
                               "folded epilogue";
  EXPECT_EQ(warpgroup, 18) << "TF32 4 and 3 deep, 3xTF32 and TF32 over two rows, the last three also with the data "
                              "copied channels last, TF32 over one row and two with a row's taps sharing each step's "
                              "channels-last data, each with and without the folded epilogue";
  EXPECT_GE(register_tiles, 4);
}

// The implicit GEMM's B fragments (the data's columns, consecutive channels on the four
// k lanes) read the data's shared copy unguarded, its channels 8 banks apart (mod 32) so
// that a warp's 32 reads hit 32 banks: with the copy's rows widened by the taps (130
// columns for 128 outputs and 3 taps) as with the padded phases of a transposed
// convolution.
TEST(ConvolutionSketches, ImplicitGemmDataFragmentsReadConsecutiveChannelsEightBanksApart) {
  const std::regex fragment_read(R"((\w+)_fb\[0\] = (\w+)\[\w+_lane % 4 \* (\d+) \+ ([^;]*);)");
  for (const char* file : {"level2/1_Conv2D_ReLU_BiasAdd.json", "level2/5_ConvTranspose2d_Subtract_Tanh.json"}) {
    SCOPED_TRACE(file);
    const Problem p = kernelbench(file);
    int checked = 0;
    for (const auto& s : legal_sketches(p)) {
      if (!contains(s.idea, "mma.sync tf32)")) continue;
      const std::string cuda = emit_cuda(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
      for (std::sregex_iterator m(cuda.begin(), cuda.end(), fragment_read), end; m != end; ++m) {
        const int64_t stride = std::stoll((*m)[3].str());
        EXPECT_TRUE(stride % 32 == 8 || stride % 32 == 24) << s.idea << ": " << (*m)[0].str();
        EXPECT_EQ((*m)[4].str().find('?'), std::string::npos) << "guarded: " << (*m)[0].str();
        ++checked;
      }
    }
    EXPECT_GE(checked, 2);
  }
}

// A block's 128 columns whose taps reach past the data's last column (126 outputs of
// 128-wide rows, 3 taps): the implicit GEMM's whole-tile copies read no element outside
// the data (the interpreter stops at any such read) and zero the columns past it, on the
// last row of the last image too, and verify.
TEST(ConvolutionSketches, ImplicitGemmTilesReachingPastTheDatasEndStayInsideIt) {
  Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 1}, {"CI", 32}, {"CO", 16}, {"H", 3}, {"W", 128}})
    p.sizes["small"][k] = v;
  int verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution))
    if (contains(s.idea, "implicit GEMM") && !contains(s.idea, "3xtf32")) {
      expect_verifies_at_small_size(p, s);
      ++verified;
    }
  EXPECT_GE(verified, 2) << "staged per tap and once for all taps";
}

// Output rows of 34 (level 2 #11) leave most of a 128-column block idle: the implicit GEMM
// also comes with the row and column loops fused into the columns, its staged copies
// bounded by the rows a block's columns span (not the whole image); the cost model
// estimates it below the unfused tile, and it verifies in the interpreter where a block's
// columns start inside a row and the last block has a tail.
TEST(ConvolutionSketches, ShortRowsGetTheImplicitGemmOverRowsAndColumnsFused) {
  Problem p = kernelbench("level2/11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm.json");
  std::map<std::string, double> estimate;  // idea -> the estimate of its kernels
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!contains(s.idea, "implicit GEMM") || contains(s.idea, "3xtf32")) continue;
    ValidationResult v = validate_schedule(p.context("bench"), s.schedule);
    if (contains(s.idea, "fuse_epilogue")) continue;  // Out reads 3 stages: no epilogue
    ASSERT_TRUE(v.ok) << s.idea << ": " << v.error.message;
    const LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
    if (contains(s.idea, "staged per tap")) {
      for (const auto& l : make_bundle(lowered).launches) EXPECT_LE(l.dynamic_smem_bytes, 113 * 1024) << s.idea;
    }
    estimate[s.idea] = estimate_cost(lowered).ms;
  }
  const auto fused = std::find_if(estimate.begin(), estimate.end(),
                                  [](const auto& kv) { return contains(kv.first, "over oh and ow fused"); });
  const auto plain = std::find_if(estimate.begin(), estimate.end(), [](const auto& kv) {
    return !contains(kv.first, "fused") && contains(kv.first, "staged per tap");
  });
  ASSERT_NE(fused, estimate.end());
  ASSERT_NE(plain, estimate.end());
  EXPECT_LT(fused->second, 0.6 * plain->second) << fused->first << " against " << plain->first;
  // Rows of 126 fill 98% of a block's columns: no fused variant there.
  for (const auto& s : class_sketches(kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json"), ProblemClass::convolution))
    EXPECT_FALSE(contains(s.idea, " fused")) << s.idea;
  // Rows of 9 + 2: 128 columns start inside a row; 2 x 11 x 11 = 242 columns, a tail.
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 2}, {"CI", 16}, {"CO", 32}, {"H", 9}, {"W", 9}, {"G", 2}})
    p.sizes["small"][k] = v;
  int verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution))
    if (contains(s.idea, "over oh and ow fused") && contains(s.idea, "implicit GEMM") &&
        !contains(s.idea, "fuse_epilogue")) {
      expect_verifies_at_small_size(p, s);
      ++verified;
    }
  EXPECT_GE(verified, 4) << "TF32 and 3xTF32, staged per tap and once";
}

// Each phase of a strided transposed convolution gets the implicit GEMM, the tile staged
// per tap included (its first phase has one tap); for level 2 #100 (64 to 128 channels,
// 3-D) that tile is the one legal at the bench size: staged once for all taps, the phase
// of eight taps needs more shared memory than a block has.
TEST(ConvolutionSketches, EachPhaseOfATransposedConvolutionGetsTheTile) {
  const Problem p = kernelbench("level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide.json");
  std::set<std::string> staging;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "on each of the 4 convolution stages") || !contains(s.idea, "implicit GEMM")) continue;
    staging.insert(contains(s.idea, "staged per tap") ? "per tap" : "once");
    int tensor_core_steps = 0;
    for (const auto& step : s.schedule) tensor_core_steps += step.value("op", "") == "tensor_core";
    EXPECT_EQ(tensor_core_steps, 4) << s.idea;
  }
  EXPECT_EQ(staging, (std::set<std::string>{"per tap", "once"}));
  const Problem p3 = kernelbench("level2/100_ConvTranspose3d_Clamp_Min_Divide.json");
  int per_tap = 0, warpgroup = 0;
  for (const auto& s : class_sketches(p3, ProblemClass::convolution))
    if (contains(s.idea, "implicit GEMM") && contains(s.idea, "on each of the 8 convolution stages") &&
        validate_schedule(p3.context("bench"), s.schedule).ok &&
        !shared_memory_error(make_bundle(lower(Schedule::from_json(p3.context("bench"), s.schedule), p3.name)),
                             "bench")) {
      if (contains(s.idea, "wgmma")) {
        ++warpgroup;  // one tap per pipelined step
        continue;
      }
      EXPECT_TRUE(contains(s.idea, "staged per tap")) << s.idea;
      ++per_tap;
    }
  EXPECT_EQ(per_tap, 4) << "TF32 and 3xTF32, over the phase's columns and over its rows and columns fused (rows of 48)";
  EXPECT_GE(warpgroup, 3) << "TF32 4 and 3 deep, 3xTF32";
}

// The output that interleaves a transposed convolution's phases (and applies the epilogue)
// runs 4 outputs a thread: a quarter of the blocks of one a thread, whose grid's time
// follows its block count; the lanes read different phases, so they stay scalar loads.
TEST(ConvolutionSketches, TheInterleavedOutputRunsFourOutputsAThread) {
  const Problem p = kernelbench("level2/16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling.json");
  int tiles = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "implicit GEMM")) continue;
    const KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
    const LaunchSpec& out = b.launches.back();
    ASSERT_NE(out.kernel.find("Out"), std::string::npos) << s.idea;
    // 128 x 64 x 256 x 256 outputs, 256 threads of 4 outputs each.
    EXPECT_EQ(out.grid[0] * out.block[0] * 4, 128LL * 64 * 256 * 256) << s.idea;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 1, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    ++tiles;
  }
  EXPECT_GE(tiles, 2);
}

// The reductions after the convolution are scheduled by their size: the 2 x 2 x 2 average
// pool (8 elements per point) by one thread per point, serially; the LayerNorm statistics
// over rows of 64 (many rows) by one warp per row, its lanes combining by shuffles; and each
// verifies in the interpreter.
TEST(ConvolutionSketches, TheOtherReductionsAreScheduledByTheirSize) {
  Problem p = kernelbench("level2/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU.json");
  bool any = false;
  for (const auto& s : legal_sketches(p)) {
    any = true;
    bool pool_cross = false, pool_thread = false;
    int64_t ln_lanes = 0;
    std::string ln_kind;
    for (const auto& step : s.schedule) {
      const std::string op = step.value("op", ""), st = step.value("stage", "");
      if (st == "Pool" && op == "cross_thread_reduce") pool_cross = true;
      if (st == "Pool" && op == "bind" && step.value("axis", "") == "threadIdx.x") pool_thread = true;
      if (st == "LNVar" && op == "split" && step.value("inner", "") == "red_thread")
        ln_lanes = step.value("factor", int64_t{0});
      if (st == "LNVar" && op == "cross_thread_reduce") ln_kind = step.value("kind", "");
    }
    EXPECT_FALSE(pool_cross) << s.idea;
    EXPECT_TRUE(pool_thread) << s.idea;
    EXPECT_EQ(ln_lanes, 32) << s.idea;
    EXPECT_EQ(ln_kind, "warp") << s.idea;
  }
  EXPECT_TRUE(any);
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 1}, {"CI", 3}, {"CO", 4}, {"D", 2}, {"H", 3}, {"W", 4}})
    p.sizes["bench"][k] = v;
  p.default_size = "bench";
  int verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!validate_schedule(p.context("bench"), s.schedule).ok) continue;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("bench"), s.schedule), "bench", 2, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    if (++verified == 3) break;
  }
  EXPECT_EQ(verified, 3);
}

// A minimum over the channels of NCHW data (level 2 #36's CMin over 128 channels at
// 1M points): one thread per point reducing serially, unrolled by 8, so that a warp reads
// 32 neighbouring columns, not a warp per point reading 32 channel planes; the LayerNorm
// statistics of level 2 #3 (over contiguous rows) keep their warp per row (above).
TEST(ConvolutionSketches, AReductionAcrossRowsTakesOneThreadPerPoint) {
  const Problem p = kernelbench("level2/36_ConvTranspose2d_Min_Sum_GELU_Add.json");
  int checked = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "implicit GEMM")) continue;
    bool thread_per_point = false, unrolled = false, cross = false;
    for (const auto& step : s.schedule) {
      if (step.value("stage", "") != "CMin") continue;
      const std::string op = step.value("op", "");
      thread_per_point |= op == "bind" && step.value("loop", "") == "flat_thread";
      unrolled |= op == "unroll" && step.value("loop", "") == "ro_unrolled";
      cross |= op == "cross_thread_reduce";
    }
    EXPECT_TRUE(thread_per_point && unrolled && !cross) << s.idea;
    // The interpreter runs the first four (every sketch schedules CMin alike).
    if (checked++ >= 4) continue;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 1, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
  }
  EXPECT_GE(checked, 2);
}

// A variance written as a sum of squares (GroupNorm's GNVar = sum GNCen * GNCen) is a
// sum of products but no contraction: it gets the reduction's grid, not a matrix tile.
TEST(ConvolutionSketches, ASumOfSquaresIsReducedNotTiledAsAMatrixProduct) {
  const Problem p = kernelbench("level2/19_ConvTranspose2d_GELU_GroupNorm.json");
  EXPECT_FALSE(is_contraction(stage(p, "GNVar")));
  EXPECT_TRUE(is_contraction(stage(p, "ConvT")));
  bool any = false;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!validate_schedule(p.context("bench"), s.schedule).ok) continue;  // the folds: Out reads 3 stages
    any = true;
    bool cross = false, tiled = false;
    for (const auto& step : s.schedule) {
      if (step.value("stage", "") != "GNVar") continue;
      cross |= step.value("op", "") == "cross_thread_reduce";
      tiled |= step.value("axis", "") == "threadIdx.y";
    }
    EXPECT_TRUE(cross) << s.idea;
    EXPECT_FALSE(tiled) << s.idea;
  }
  EXPECT_TRUE(any);
}

// Few long reductions (BatchNorm's per-channel variance, its sum stored by the variance's
// kernel: 2 channels of 71874 elements here) are split over a cluster of blocks per point,
// each block's threads combining their part first; two points leave the machine far from full, so the blocks
// have 1024 threads and the cluster 16 blocks where every size of the problem splits into
// 16 parts (the small size's 210 elements do not: 8). Such sketches verify in the
// interpreter.
TEST(ConvolutionSketches, FewLongReductionsSplitOverAClusterOfBlocks) {
  Problem p = kernelbench("level2/15_ConvTranspose3d_BatchNorm_Subtract.json");
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 2}, {"CI", 2}, {"CO", 2}, {"D", 17}, {"H", 17}, {"W", 17}})
    p.sizes["bench"][k] = v;
  int verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!validate_schedule(p.context("bench"), s.schedule).ok) continue;
    std::map<std::string, std::set<std::string>> kinds;
    std::map<std::string, int64_t> parts, threads;
    for (const auto& step : s.schedule) {
      const std::string stage = step.value("stage", ""), op = step.value("op", "");
      if (stage != "BNSum" && stage != "BNVar") continue;
      if (op == "cross_thread_reduce") kinds[stage].insert(step.value("kind", ""));
      if (op == "split" && step.contains("parts")) parts[stage] = step["parts"].get<int64_t>();
      if (op == "split" && step.value("inner", "") == "redt") threads[stage] = step["factor"].get<int64_t>();
    }
    EXPECT_EQ(kinds["BNVar"], (std::set<std::string>{"block", "cluster"})) << s.idea;
    EXPECT_EQ(parts["BNVar"], 8) << s.idea;
    EXPECT_EQ(threads["BNVar"], 1024) << s.idea;
    // The sum of the same values is stored by the variance's kernel (sum_with_variance).
    EXPECT_TRUE(kinds["BNSum"].empty()) << s.idea;
    EXPECT_EQ(Schedule::from_json(p.context("bench"), s.schedule).state().stage("BNSum").with_variance, "BNVar");
    if (verified < 2) {
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("bench"), s.schedule), "bench", 1, 1);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
      ++verified;
    }
  }
  EXPECT_EQ(verified, 2);
}

// A chain of two GEMMs (level 2 #45: Gemm1, sigmoid, Gemm2, logsumexp): the matmul
// sketches put the tensor-core tile on both products, and the sigmoid between them, which
// Gemm2 reads as an operand, gets a grid of its own instead of being computed again inside
// Gemm2 for every output column; such sketches verify in the interpreter.
TEST(MatmulSketches, AChainOfGemmsIsTiledThroughoutAndItsOperandIsNotInlined) {
  Problem p = kernelbench("level2/45_Gemm_Sigmoid_LogSumExp.json");
  EXPECT_TRUE(read_by_contraction(p, "Hid"));
  int both = 0, verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    std::set<std::string> tensor_core;
    bool hid_inlined = false;
    for (const auto& step : s.schedule) {
      if (step.value("op", "") == "tensor_core") tensor_core.insert(step.value("stage", ""));
      hid_inlined |= step.value("op", "") == "compute_inline" && step.value("stage", "") == "Hid";
    }
    EXPECT_FALSE(hid_inlined) << s.idea;
    if (tensor_core.size() < 2) continue;
    ++both;
    EXPECT_TRUE(contains(s.idea, "the same tile on each of the 1 other products")) << s.idea;
    if (verified < 2 && validate_schedule(p.context("small"), s.schedule).ok) {
      expect_verifies_at_small_size(p, s);
      ++verified;
    }
  }
  EXPECT_GE(both, 4);
  EXPECT_EQ(verified, 2);
}

// Scaled dot-product attention (level 1 #97): both products run over the batch and the
// heads, which the tensor-core tiles fuse into one batch loop; such sketches, wgmma and
// mma.sync, tile both products, are legal at the small and bench sizes and verify in the
// interpreter.
TEST(MatmulSketches, AttentionsBatchAndHeadsFuseIntoTheTensorCoreTilesBatchLoop) {
  const Problem p = kernelbench("level1/97_ScaledDotProductAttention.json");
  std::set<std::string> shapes;
  int verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    std::map<std::string, std::string> tensor_core;
    for (const auto& step : s.schedule)
      if (step.value("op", "") == "tensor_core") tensor_core[step.value("stage", "")] = step.value("shape", "");
    if (tensor_core.size() < 2) continue;
    EXPECT_EQ(tensor_core.count("Sc") + tensor_core.count("Y"), 2u) << s.idea;
    shapes.insert(tensor_core["Sc"]);
    expect_legal_at_both_sizes(p, s);
    if (verified < 2 || (tensor_core["Sc"] == "m64nNk8" && !shapes.count("verified wgmma"))) {
      expect_verifies_at_small_size(p, s);
      if (tensor_core["Sc"] == "m64nNk8") shapes.insert("verified wgmma");
      ++verified;
    }
  }
  EXPECT_TRUE(shapes.count("m64nNk8"));
  EXPECT_TRUE(shapes.count("m16n8k8"));
  EXPECT_TRUE(shapes.count("verified wgmma"));
}

// A 3-D convolution whose rows are 10 outputs long (level 1 #59): register tiles over the
// last two output loops fused, so a warp's 32 lanes run along both (and the implicit GEMM
// of its 3 channels and taps fused, over the same columns); legal at both sizes,
// verified in the interpreter.
TEST(ConvolutionSketches, RowsShorterThanAWarpFuseTheLastTwoOutputLoops) {
  const Problem p = kernelbench("level1/59_conv_standard_3D__asymmetric_input__square_kernel.json");
  int fused = 0, register_tiles = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!contains(s.idea, "over oh and ow fused")) continue;
    ++fused;
    register_tiles += contains(s.idea, "register tiles");
    EXPECT_EQ(s.schedule[0].value("op", ""), "fuse") << s.idea;
    expect_legal_at_both_sizes(p, s);
    if (contains(s.idea, "register tiles") || fused <= 4) expect_verifies_at_small_size(p, s);
  }
  EXPECT_EQ(register_tiles, 3);
  EXPECT_EQ(fused, 9);  // and 6 implicit GEMMs: TF32 and 3xTF32, staged 3 or 2 deep or once per block
}

// 48 output channels (level 1 #61, a 3-D transposed convolution of stride 1): not a
// multiple of 32, but of 16, so the implicit GEMM runs warps of 16 channels, blocks of 16
// channels x 128 columns (64 threads), also over its short rows (of 66) fused with their
// columns; legal at both sizes and verified in the interpreter.
TEST(ConvolutionSketches, ChannelsAMultipleOf16GetImplicitGemmWithWarpsOf16Channels) {
  const Problem p = kernelbench("level1/61_conv_transposed_3D__square_input__square_kernel.json");
  int tiles = 0, fused = 0;
  for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
    if (!contains(s.idea, "implicit GEMM")) continue;
    ++tiles;
    EXPECT_TRUE(contains(s.idea, "16 channels x 128 columns per block")) << s.idea;
    int64_t max_threads = 0;
    for (const auto& step : s.schedule)
      if (step.value("op", "") == "launch_bounds") max_threads = step["max_threads"].get<int64_t>();
    EXPECT_EQ(max_threads, 64) << s.idea;
    expect_legal_at_both_sizes(p, s);
    if (tiles <= 2 || (contains(s.idea, " fused") && ++fused == 1)) {
      expect_verifies_at_small_size(p, s);
    }
  }
  EXPECT_EQ(tiles, 8) << "TF32 and 3xTF32, staged per tap and once, over the columns and over rows and columns fused";
  EXPECT_EQ(fused, 4);
}

// A 256 x 256 product over k of 524288 (level 1 #6) has four output tiles: split-K sketches
// rfactor k into 128 parts of 4096 (the small size's k of 1000 is one short part that reads
// zero past its end), each part a tensor-core tile, the parts summed by one thread per
// output; legal at both sizes and verified in the interpreter.
TEST(MatmulSketches, FewOutputTilesOverALongReductionSplitK) {
  const Problem p = kernelbench("level1/6_Matmul_with_large_K_dimension_.json");
  std::set<std::string> precisions;
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    if (!contains(s.idea, "split-K")) continue;
    EXPECT_TRUE(contains(s.idea, "k in 128 parts")) << s.idea;
    std::string rfactor_of, tiled;
    for (const auto& step : s.schedule) {
      if (step.value("op", "") == "rfactor") rfactor_of = step.value("stage", "");
      if (step.value("op", "") == "tensor_core") {
        tiled = step.value("stage", "");
        precisions.insert(step.value("precision", ""));
      }
    }
    EXPECT_EQ(rfactor_of, "C");
    EXPECT_EQ(tiled, "C_part");
    expect_legal_at_both_sizes(p, s);
    expect_verifies_at_small_size(p, s);
  }
  EXPECT_EQ(precisions, (std::set<std::string>{"tf32", "3xtf32"}));
  // A square 4096^3 product has enough tiles, a matrix times a vector (level 1 #4, k of
  // 1048576) a side of 1: no split.
  const Problem& square = find_problem("matmul");
  for (const auto& s : class_sketches(square, ProblemClass::matmul)) EXPECT_FALSE(contains(s.idea, "split-K"));
  const Problem vector = kernelbench("level1/4_Matrix_vector_multiplication_.json");
  for (const auto& s : class_sketches(vector, ProblemClass::matmul)) EXPECT_FALSE(contains(s.idea, "split-K"));
}

// A depthwise convolution (no channel sum) gets register tiles only; a 3-D convolution of
// 3 channels into 24 (level 2 #23) gets them and implicit GEMMs over its taps and channels
// fused, in blocks of 32 channels (8 idle).
TEST(ConvolutionSketches, DepthwiseConvolutionsGetRegisterTilesOnly) {
  for (const std::string file :
       {"level1/82_conv_depthwise_2D_square_input_square_kernel.json", "level2/23_Conv3d_GroupNorm_Mean.json"}) {
    const Problem p = kernelbench(file);
    int register_tiles = 0, fused_k = 0;
    for (const auto& s : legal_sketches(p)) {
      register_tiles += contains(s.idea, "register tiles");
      fused_k += contains(s.idea, "32 channels x 128 columns per block") &&
                 contains(s.idea, "and the taps walked as one reduction in chunks of 8");
      if (file.find("depthwise") != std::string::npos) {
        EXPECT_FALSE(contains(s.idea, "implicit GEMM")) << s.idea;
      }
    }
    EXPECT_GE(register_tiles, 3) << file;
    EXPECT_EQ(fused_k > 0, file.find("23_Conv3d") != std::string::npos) << file;
  }
}

// Every KernelBench file the proposer takes for a convolution (98 of the 200) gets a legal
// register tile at its bench size, and most (90) a legal implicit GEMM too: the rest have
// no channel sum (depthwise), fewer than 16 output channels, or 3 channels read through
// padding or by descending taps (level 1 #50).
TEST(ConvolutionSketches, EveryKernelBenchConvolutionHasALegalTile) {
  int files = 0, tiled = 0, tensor_core = 0;
  for (const char* level : {"level1", "level2"})
    for (const auto& e : fs::directory_iterator(fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / level)) {
      const Problem p = load_problem_file(e.path().string());
      if (classify_pipeline(p.pipeline) != ProblemClass::convolution) continue;
      ++files;
      bool tile = false, gemm = false, legal = false;
      for (const auto& s : class_sketches(p, ProblemClass::convolution)) {
        if (!validate_schedule(p.context("bench"), s.schedule).ok) continue;
        legal = true;
        tile |= contains(s.idea, "register tiles");
        gemm |= contains(s.idea, "implicit GEMM");
      }
      EXPECT_TRUE(legal) << e.path().filename();
      tiled += tile;
      tensor_core += gemm;
    }
  std::cout << files << " convolution files: " << tiled << " with a legal register tile, " << tensor_core
            << " with a legal implicit GEMM\n";
  EXPECT_GE(files, 90);
  EXPECT_EQ(tiled, files);
  EXPECT_GE(tensor_core, 90);
}

// The sketches of kb2_1 made for `shape` (as its bench size) verify in the interpreter at it.
void expect_sketches_verify(const std::map<std::string, int64_t>& shape, const std::string& kind, int want) {
  Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (const auto& [k, v] : shape) p.sizes["bench"][k] = v;
  int verified = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, kind)) continue;
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("bench"), s.schedule), "bench", 3, 1);
    EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    ++verified;
  }
  EXPECT_GE(verified, want) << kind;
}

TEST(ConvolutionSketches, RegisterTilesVerifyWithTailsInTheInterpreter) {
  expect_sketches_verify({{"N", 2}, {"CI", 3}, {"CO", 12}, {"H", 7}, {"W", 41}}, "register tiles", 4);
}

TEST(ConvolutionSketches, ImplicitGemmTilesVerifyInTheInterpreter) {
  expect_sketches_verify({{"N", 1}, {"CI", 16}, {"CO", 32}, {"H", 4}, {"W", 70}}, "implicit GEMM", 8);
}

}  // namespace
}  // namespace cusched::search
