// The built-in proposer: problem classes, schedule moves and the proposals it makes.
#include "search/builtin_proposer.h"

#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/candidate_evaluation.h"
#include "search/schedule_moves.h"
#include "search/store.h"

namespace cusched::search {
namespace {

using nlohmann::json;

// `s` verifies in the interpreter at the small size, or for a pipeline on the tensor
// memory accelerator at the small size with 16-byte rows.
runtime::InterpVerification verify_small(const Problem& p, const json& s) {
  const bool tensor = s.dump().find("\"engine\":\"tensor\"") != std::string::npos;
  Problem q = p;
  const std::string size = tensor ? q.add_16_byte_rows_size("small") : "small";
  return runtime::verify_with_interpreter(q, Schedule::from_json(q.context(size), s), size, 3, 1);
}

// The first round of 4 ideas x 4 that a GPU search proposes: legal and estimated at the
// bench size alone.
RoundProposals first_round_at_bench(const Problem& p) {
  BuiltinProposerConfig config;
  config.sizes = {"bench"};
  config.cost_size = "bench";
  return BuiltinProposer(p, config).propose(ProposalContext{}, 4, 4);
}

bool legal_at(const Problem& p, const json& steps, const std::string& size) {
  return validate_schedule(p.context(size), steps).ok;
}

TEST(ProblemClass, ReadFromThePipeline) {
  EXPECT_EQ(classify_pipeline(find_problem("softmax").pipeline), ProblemClass::normalisation);
  EXPECT_EQ(classify_pipeline(find_problem("layernorm").pipeline), ProblemClass::normalisation);
  EXPECT_EQ(classify_pipeline(find_problem("relu").pipeline), ProblemClass::pointwise);
  EXPECT_EQ(classify_pipeline(find_problem("sum_dim1").pipeline), ProblemClass::reduction);
  EXPECT_EQ(classify_pipeline(find_problem("matmul").pipeline), ProblemClass::matmul);
  EXPECT_EQ(classify_pipeline(find_problem("conv2d").pipeline), ProblemClass::convolution);
}

TEST(ScheduleMoves, SplitBeforeUseRenamesLaterUses) {
  json steps = json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "j", "factor": 256, "outer": "jo", "inner": "ji"},
    {"op": "bind", "stage": "Y", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "compute_at", "stage": "M", "consumer": "Y", "loop": "j"}
  ])");
  std::set<std::string> used = {"i", "j"};
  std::string inner = split_before_use(steps, "Y", "j", 4, used);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0]["op"], "split");
  EXPECT_EQ(steps[0]["loop"], "j");
  EXPECT_EQ(steps[0]["inner"], inner);
  std::string outer = steps[0]["outer"];
  EXPECT_NE(outer, "j");
  EXPECT_EQ(steps[1]["loop"], outer);  // the old split now splits the outer part
  EXPECT_EQ(steps[3]["loop"], outer);  // and the compute_at site follows
  EXPECT_TRUE(used.count(inner) && used.count(outer));
}

TEST(ScheduleMoves, VectorizeOnSoftmaxBaselineIsLegal) {
  const Problem& p = find_problem("softmax");
  json base = validate_schedule(p.context("bench"), p.baseline_schedule).steps;
  ScheduleState st = Schedule::from_json(p.context("bench"), base).state();
  int legal = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    auto m = apply_move("vectorize", base, st, rng);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->move, "vectorize");
    if (m->idea.find("Y") != std::string::npos && legal_at(p, m->schedule, "bench")) {
      ++legal;
      auto vst = Schedule::from_json(p.context("bench"), m->schedule).state();
      bool vectorized = false;
      for (const auto& [n, l] : vst.stage("Y").loops) vectorized |= l.kind == LoopKind::Vectorized;
      EXPECT_TRUE(vectorized);
    }
  }
  EXPECT_GT(legal, 0);
}

TEST(ScheduleMoves, FuseProducersComputesThemInsideTheConsumer) {
  const Problem& p = find_problem("softmax");
  json base = validate_schedule(p.context("bench"), p.baseline_schedule).steps;
  ScheduleState st = Schedule::from_json(p.context("bench"), base).state();
  std::mt19937_64 rng(3);
  auto m = apply_move("fuse_producers", base, st, rng);
  ASSERT_TRUE(m);
  auto v = validate_schedule(p.context("bench"), m->schedule);
  ASSERT_TRUE(v.ok) << v.error.to_string();
  auto fused = Schedule::from_json(p.context("bench"), v.steps).state();
  EXPECT_EQ(fused.stage("M").location, ComputeLocation::At);
  EXPECT_EQ(fused.stage("S").location, ComputeLocation::At);
  EXPECT_EQ(fused.stage("M").at_stage, "Y");
  EXPECT_FALSE(fused.stage("S").cross_thread_loop.empty());
}

TEST(ScheduleMoves, RetileChangesOneFactor) {
  const Problem& p = find_problem("softmax");
  json base = validate_schedule(p.context("bench"), p.baseline_schedule).steps;
  ScheduleState st = Schedule::from_json(p.context("bench"), base).state();
  std::mt19937_64 rng(5);
  auto m = apply_move("retile", base, st, rng);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->schedule.size(), base.size());
  int changed = 0;
  for (size_t i = 0; i < base.size(); ++i) changed += m->schedule[i] != base[i];
  EXPECT_EQ(changed, 1);
  EXPECT_NE(m->idea.find("instead of"), std::string::npos);
}

TEST(ScheduleMoves, PipelineMakesStagedCopiesAsynchronous) {
  const Problem& p = find_problem("matmul");
  json base = validate_schedule(p.context("bench"), tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8)).steps;
  ScheduleState st = Schedule::from_json(p.context("bench"), base).state();
  std::mt19937_64 rng(3);
  auto m = apply_move("pipeline", base, st, rng);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->schedule.size(), base.size() + 1);
  EXPECT_EQ(m->schedule.back()["op"], "pipeline");
  EXPECT_EQ(m->schedule.back()["loop"], "ko");
  ASSERT_TRUE(legal_at(p, m->schedule, "bench")) << m->schedule.dump();
  LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), m->schedule), p.name);
  EXPECT_NE(print_ir(lowered).find("async_wait"), std::string::npos);
  // A stage with no shared copies at a serial loop has nothing to pipeline.
  const Problem& relu = find_problem("relu");
  json flat = validate_schedule(relu.context("bench"), relu.best_schedule).steps;
  EXPECT_FALSE(apply_move("pipeline", flat, Schedule::from_json(relu.context("bench"), flat).state(), rng));
}

TEST(ScheduleMoves, FastMathSwitchesAStageThatComputesExpAndKeepsItsOperands) {
  const Problem& p = find_problem("softmax");
  json base = validate_schedule(p.context("bench"), p.baseline_schedule).steps;
  ScheduleState st = Schedule::from_json(p.context("bench"), base).state();
  std::mt19937_64 rng(7);
  std::set<std::string> switched;
  for (int i = 0; i < 20; ++i) {
    auto m = apply_move("fast_math", base, st, rng);
    ASSERT_TRUE(m);
    ASSERT_TRUE(legal_at(p, m->schedule, "bench")) << m->schedule.dump();
    const json& step = m->schedule.back();
    EXPECT_EQ(step["op"], "precision");
    EXPECT_EQ(step["math"], "fast");
    EXPECT_EQ(step["operands"], "f32");
    switched.insert(step["stage"].get<std::string>());
  }
  // M is a maximum: no exp, log or division to approximate.
  EXPECT_EQ(switched, (std::set<std::string>{"S", "Y"}));
  // Once every such stage is fast there is nothing left to switch.
  json both = concat_steps({base, fast_math_steps({"S", "Y"})});
  EXPECT_FALSE(apply_move("fast_math", both, Schedule::from_json(p.context("bench"), both).state(), rng));
  // relu computes none of them.
  const Problem& relu = find_problem("relu");
  json flat = validate_schedule(relu.context("bench"), relu.best_schedule).steps;
  EXPECT_FALSE(apply_move("fast_math", flat, Schedule::from_json(relu.context("bench"), flat).state(), rng));
}

TEST(ScheduleMoves, L2KeepHintsTheFirstOfTwoKernelsThatReadAnInput) {
  const Problem& p = find_problem("layernorm");
  json best = validate_schedule(p.context("bench"), p.best_schedule).steps;
  json unhinted = json::array();
  for (const auto& s : best)
    if (s["op"] != "l2_hint") unhinted.push_back(s);
  ASSERT_LT(unhinted.size(), best.size()) << "the best-known schedule carries an L2 hint";
  std::mt19937_64 rng(3);
  // The best-known schedule already keeps part of X: there is nothing left to hint.
  EXPECT_FALSE(apply_move("l2_keep", best, Schedule::from_json(p.context("bench"), best).state(), rng));
  ScheduleState st = Schedule::from_json(p.context("bench"), unhinted).state();
  auto m = apply_move("l2_keep", unhinted, st, rng);
  ASSERT_TRUE(m);
  ASSERT_TRUE(legal_at(p, m->schedule, "bench")) << m->schedule.dump();
  const json& step = m->schedule.back();
  EXPECT_EQ(step["op"], "l2_hint");
  // X is read by the moments kernel (Moments_rf) and by the normalisation (Y): the first
  // keeps part of it; weight and bias are read by Y alone.
  EXPECT_EQ(step["stage"], "Moments_rf");
  EXPECT_EQ(step["source"], "X");
  EXPECT_EQ(step["policy"], "evict_last");
  EXPECT_TRUE(step["percent"] == 5 || step["percent"] == 10) << step.dump();
  // Once hinted, there is nothing left to keep; a one-kernel problem has nothing either.
  EXPECT_FALSE(apply_move("l2_keep", m->schedule, Schedule::from_json(p.context("bench"), m->schedule).state(), rng));
  const Problem& relu = find_problem("relu");
  json flat = validate_schedule(relu.context("bench"), relu.best_schedule).steps;
  EXPECT_FALSE(apply_move("l2_keep", flat, Schedule::from_json(relu.context("bench"), flat).state(), rng));
}

TEST(ScheduleMoves, RasterGroupsTheTilesOfAStageOnTwoBlockAxes) {
  const Problem& p = find_problem("matmul");
  json best = validate_schedule(p.context("bench"), p.best_schedule).steps;
  std::mt19937_64 rng(5);
  auto m = apply_move("raster", best, Schedule::from_json(p.context("bench"), best).state(), rng);
  ASSERT_TRUE(m);
  ASSERT_TRUE(legal_at(p, m->schedule, "bench")) << m->schedule.dump();
  const json& step = m->schedule.back();
  EXPECT_EQ(step["op"], "block_raster");
  EXPECT_EQ(step["stage"], "C");
  EXPECT_TRUE(step["group"] == 4 || step["group"] == 8 || step["group"] == 16) << step.dump();
  // Once rastered there is nothing left to raster; a flat grid has one block axis only.
  EXPECT_FALSE(apply_move("raster", m->schedule, Schedule::from_json(p.context("bench"), m->schedule).state(), rng));
  const Problem& relu = find_problem("relu");
  json flat = validate_schedule(relu.context("bench"), relu.baseline_schedule).steps;
  EXPECT_FALSE(apply_move("raster", flat, Schedule::from_json(relu.context("bench"), flat).state(), rng));
}

TEST(Sketches, SoftmaxHasLegalOneBlockPerRowSketches) {
  const Problem& p = find_problem("softmax");
  int legal = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation))
    if (legal_at(p, s.schedule, "small") && legal_at(p, s.schedule, "bench")) ++legal;
  EXPECT_GT(legal, 0);
}

// Softmax rows over thread-block clusters: every cluster sketch is legal at both sizes,
// lowers to one kernel with its cluster on the grid's x axis, and the small ones verify.
TEST(Sketches, SoftmaxHasClusterRowSketchesThatVerifyInTheInterpreter) {
  const Problem& p = find_problem("softmax");
  int clusters = 0, with_register_tail = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
    if (s.idea.find("clusters of") == std::string::npos) continue;
    ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.idea;
    LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
    ASSERT_EQ(lowered.kernels.size(), 1u);
    EXPECT_GE(lowered.kernels[0].cluster, 2) << s.idea;
    EXPECT_EQ(lowered.kernels[0].grid[0], lowered.kernels[0].cluster) << s.idea;
    if (s.idea.find("in registers") != std::string::npos) {
      // 2 float4 of each of 256 threads: 8 KiB of the slice in registers.
      ASSERT_EQ(lowered.kernels[0].register_tails.size(), 1u) << s.idea;
      const RegisterTail& t = lowered.kernels[0].register_tails[0];
      EXPECT_EQ(65536 / lowered.kernels[0].cluster - t.start, 2 * 4 * 256) << s.idea;
      EXPECT_EQ(lowered.kernels[0].launch_min_blocks, 8) << s.idea;
      if (lowered.kernels[0].cluster == 8) {
        EXPECT_EQ(concat_steps({s.schedule, fast_math_steps({"S", "Y"})}), p.best_schedule)
            << "softmax's best is this sketch with fast math";
      }
      ++with_register_tail;
    }
    if (s.idea.find("of 2 blocks of 512") != std::string::npos ||
        s.idea.find("clusters of 16 blocks of 128") != std::string::npos) {
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3, 1);
      EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << "\n" << s.idea;
    }
    ++clusters;
  }
  // 12 strided-chunk sketches (clusters of 2, 4, 8 x 512, 1024 threads x scalar or float4
  // reductions), 9 slice sketches (clusters of 4, 8, 16 x 128, 256, 512 threads), 4 with
  // a thread's values a block's width apart (clusters of 8, 16 x 256, 512 threads) and 3
  // slice sketches with a register tail (clusters of 4, 8, 16 x 256 threads).
  EXPECT_EQ(clusters, 28);
  EXPECT_EQ(with_register_tail, 3);
  // LayerNorm's statistics have several reduction variables: fused into one for the
  // strided-chunk sketches, no slices copied into shared memory.
  int layernorm_clusters = 0;
  for (const auto& s : class_sketches(find_problem("layernorm"), ProblemClass::normalisation)) {
    EXPECT_EQ(s.idea.find("row slices"), std::string::npos) << s.idea;
    layernorm_clusters += s.idea.rfind("rows over clusters of", 0) == 0;
  }
  EXPECT_EQ(layernorm_clusters, 12);
}

// Sums of products with an operand along k get warpgroup tensor-core sketches: C's
// transpose for A @ B (B's rows run along j), the plain orientation for X @ W^T (both
// along k), in TF32 and in 3xTF32, and TF32 on the tensor memory accelerator; all legal at
// the bench size, the deepest 256-wide TF32 ones (on both copy engines) and the deepest
// 3xTF32 ones verify at the small.
TEST(Sketches, MatmulProblemsHaveWgmmaSketchesThatVerifyInTheInterpreter) {
  for (const auto& [problem, transposed] :
       std::vector<std::pair<std::string, bool>>{{"matmul", true}, {"bmm", true}, {"gemm_add_relu", false}}) {
    const Problem& p = find_problem(problem);
    int wgmma = 0, tensor_engine = 0;
    for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
      if (s.idea.find("wgmma") == std::string::npos || s.idea.find("fuse_epilogue") != std::string::npos) continue;
      ++wgmma;
      tensor_engine += s.schedule.dump().find("\"engine\":\"tensor\"") != std::string::npos;
      EXPECT_EQ(s.idea.find("C's transpose") != std::string::npos, transposed) << s.idea;
      ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.idea;
      const bool three_tf32 = s.idea.find("3xTF32") != std::string::npos;
      if ((s.idea.rfind("256x128", 0) == 0 || three_tf32) && s.idea.find("4 deep") != std::string::npos) {
        auto r = verify_small(p, s.schedule);
        EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << problem << ": " << r.message << r.error.message << "\n"
                                                            << s.idea;
      }
    }
    EXPECT_EQ(wgmma, 8) << problem << ": four TF32 tiles, two 3xTF32 tiles and two TF32 tiles on the accelerator";
    EXPECT_EQ(tensor_engine, 2) << problem;
  }
}

// Sums of products of two bf16 tensors get 16-bit warpgroup tiles only (m64nNk16, k staged
// 64 at a time, on the tensor memory accelerator or copied synchronously): all legal at the
// bench size, and the 4-deep one on the accelerator verifies at the small size.
TEST(Sketches, Bf16ProductsHaveSixteenBitWgmmaSketches) {
  const Problem& p = find_problem("matmul_bf16");
  int wgmma = 0, verified = 0;
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    if (s.idea.find("wgmma") == std::string::npos) continue;
    ++wgmma;
    EXPECT_NE(s.idea.find("BF16"), std::string::npos) << s.idea;
    EXPECT_NE(s.schedule.dump().find("m64nNk16"), std::string::npos) << s.idea;
    EXPECT_EQ(s.schedule.dump().find("m64nNk8"), std::string::npos) << s.idea;
    ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.idea;
    if (s.idea.find("4 deep on the tensor memory accelerator") != std::string::npos && verified == 0) {
      auto r = verify_small(p, s.schedule);
      EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message << "\n" << s.idea;
      ++verified;
    }
  }
  EXPECT_GE(wgmma, 4);
  EXPECT_EQ(verified, 1);
}

// The search's compute-sanitizer run of its best happens at the small size; a wgmma tile on
// the tensor memory accelerator, which gemm_add_relu's small rows (37 floats) refuse, is
// sanitized at the small size with 16-byte rows instead, and a refusal of any other kind
// still stops it.
TEST(Sketches, TensorCopyTilesAreSanitizedAtTheSmallSizeWith16ByteRows) {
  const Problem& p = find_problem("gemm_add_relu");
  std::optional<json> tile;
  for (const auto& s : class_sketches(p, ProblemClass::matmul))
    if (s.schedule.dump().find("\"engine\":\"tensor\"") != std::string::npos) tile = s.schedule;
  ASSERT_TRUE(tile);
  const json report = sanitize_schedule(p, *tile, false);
  EXPECT_EQ(report.value("size", ""), "small_rows16") << report.dump();
  json bad = *tile;
  bad.push_back({{"op", "split"}, {"stage", "G"}, {"loop", "nowhere"}, {"factor", 2}});
  EXPECT_THROW(sanitize_schedule(p, bad, false), UserError);
}

// A GEMM followed by a pointwise output gets each matmul sketch twice: as it is, and
// with the output folded into the product's final store (fuse_epilogue), which is legal
// at the bench size and lowers to one kernel (the register tiles on CUDA cores too); the
// folded wgmma and mma.sync tiles verify at the small size. A plain matmul has nothing to fold.
TEST(Sketches, GemmEpiloguesHaveFoldedSketchesInOneKernelThatVerify) {
  for (const std::string problem : {"gemm_add_relu", "gemm_scale_leakyrelu"}) {
    const Problem& p = find_problem(problem);
    std::set<std::string> tiles, folded_tiles;
    int verified = 0;
    for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
      const auto fold = s.idea.find(", with Y folded into its final store (fuse_epilogue)");
      if (fold == std::string::npos) {
        if (s.idea.find("tensor cores") != std::string::npos || s.idea.find("warpgroup") != std::string::npos ||
            s.idea.find("thread tiles") != std::string::npos || s.idea.find("register tiles") != std::string::npos)
          tiles.insert(s.idea);
        continue;
      }
      folded_tiles.insert(s.idea.substr(0, fold));
      ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.idea;
      EXPECT_EQ(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name).kernels.size(), 1u) << s.idea;
      if ((s.idea.rfind("256x128", 0) == 0 && s.idea.find("4 deep") != std::string::npos) ||
          s.idea.rfind("64x64 blocks", 0) == 0) {
        auto r = verify_small(p, s.schedule);
        EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << problem << ": " << r.message << r.error.message << "\n"
                                                            << s.idea;
        ++verified;
      }
    }
    EXPECT_FALSE(tiles.empty()) << problem;
    EXPECT_EQ(folded_tiles, tiles) << problem << ": every tile sketch has its folded variant";
    EXPECT_GE(verified, 2) << problem;
  }
  for (const auto& s : class_sketches(find_problem("matmul"), ProblemClass::matmul))
    EXPECT_EQ(s.idea.find("fuse_epilogue"), std::string::npos) << s.idea;
}

TEST(Sketches, LayerNormHasSplitRowSketchesThatVerifyInTheInterpreter) {
  const Problem& p = find_problem("layernorm");
  int split = 0, rows_on_x = 0, combined_in_output = 0;
  for (const auto& s : class_sketches(p, ProblemClass::normalisation)) {
    if (s.idea.find("split rows") == std::string::npos) continue;
    ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.schedule.dump();
    LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
    const bool in_output = s.idea.find("combined by every output block") != std::string::npos;
    const int64_t partial_blocks = lowered.kernels[0].grid[0] * lowered.kernels[0].grid[1] * lowered.kernels[0].grid[2];
    if (in_output) {
      // 8 parts of each of the 16 rows, 1024 threads each: the shape measured fastest.
      EXPECT_EQ(partial_blocks, 8 * 16) << s.idea;
      EXPECT_EQ(lowered.kernels[0].block[0] * lowered.kernels[0].block[1] * lowered.kernels[0].block[2], 1024)
          << s.idea;
    } else {
      EXPECT_GE(partial_blocks, 132) << "the partial reduction must fill the GPU: " << s.idea;
    }
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3, 1);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message << r.error.message << "\n" << s.schedule.dump();
    ++split;
    if (s.idea.find("rows on blockIdx.x") != std::string::npos) {
      // The output's 16 rows (b) are the fastest block index, so consecutive blocks share weight and bias.
      ++rows_on_x;
      EXPECT_EQ(lowered.kernels.back().grid[0], 16) << s.schedule.dump();
    }
    // The partial moments are combined either by a kernel of their own or, from 8 parts
    // per row, by every output block (two kernels: the partials and the output).
    combined_in_output += in_output;
    EXPECT_EQ(lowered.kernels.size(), in_output ? 2u : 3u) << s.idea;
  }
  EXPECT_EQ(split, 6);
  EXPECT_EQ(rows_on_x, 4);
  EXPECT_EQ(combined_in_output, 2);
}

// Attention (KernelBench level 1 #97): the fused-tile sketches inline the probabilities and
// compute the scores and their row statistic at the output's tile of query rows, so each
// lowers to one kernel with no score buffer, and verifies.
TEST(Sketches, AttentionHasFusedTileSketchesThatKeepTheScoresOnChip) {
  const Problem p = load_problem_file(std::string(CUSCHED_SOURCE_DIR) +
                                      "/problems/kernelbench/level1/97_ScaledDotProductAttention.json");
  ASSERT_EQ(classify_pipeline(p.pipeline), ProblemClass::matmul);
  int fused = 0;
  for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
    if (s.idea.find("fused into tiles") == std::string::npos) continue;
    ++fused;
    ValidationResult v = validate_schedule(p.context("bench"), s.schedule);
    ASSERT_TRUE(v.ok) << s.idea << ": " << v.error.code << ": " << v.error.message;
    LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
    EXPECT_EQ(lowered.kernels.size(), 1u) << s.idea;
    EXPECT_EQ(lowered.find_buffer("Sc"), nullptr) << s.idea;
    // Each block holds its tile's rows of scores: within the shared memory of a block.
    auto too_large = shared_memory_error(make_bundle(lowered), "bench");
    EXPECT_FALSE(too_large.has_value()) << s.idea << ": " << (too_large ? too_large->message : "");
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 3, 1);
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
  }
  EXPECT_EQ(fused, 4);
  // A pipeline whose output is not a reduction of reductions gets none.
  for (const auto& s : class_sketches(find_problem("matmul"), ProblemClass::matmul))
    EXPECT_EQ(s.idea.find("fused into tiles"), std::string::npos) << s.idea;
}

TEST(Sketches, MatmulProblemsHaveLegalTensorCoreSketchesThatLower) {
  for (const char* name : {"matmul", "bmm", "gemm_add_relu"}) {
    SCOPED_TRACE(name);
    const Problem& p = find_problem(name);
    int tensor_core = 0;
    for (const auto& s : class_sketches(p, ProblemClass::matmul)) {
      if (s.idea.find("tensor cores") == std::string::npos) continue;
      const bool split = s.idea.find("3xtf32") != std::string::npos;
      ASSERT_TRUE(legal_at(p, s.schedule, "small")) << s.schedule.dump();
      ASSERT_TRUE(legal_at(p, s.schedule, "bench")) << s.schedule.dump();
      LoweredProgram lowered = lower(Schedule::from_json(p.context("bench"), s.schedule), p.name);
      EXPECT_NE(print_ir(lowered).find(split ? "mma_m16n8k8_3xtf32" : "mma_m16n8k8_tf32"), std::string::npos) << s.idea;
      ++tensor_core;
    }
    EXPECT_GE(tensor_core, 3);
  }
}

TEST(BuiltinProposer, FirstRoundStartsFromTheBaselineAndIsLegal) {
  const Problem& p = find_problem("softmax");
  BuiltinProposer proposer(p, {});
  ProposalContext ctx;
  auto r = proposer.propose(ctx, 3, 4);
  ASSERT_FALSE(r.proposals.empty());
  EXPECT_LE(r.proposals.size(), 12u);
  EXPECT_LE(r.ideas.size(), r.proposals.size());
  json base = validate_schedule(p.context("small"), p.baseline_schedule).steps;
  EXPECT_EQ(schedule_hash(r.proposals[0].schedule), schedule_hash(base));
  std::set<std::string> hashes;
  for (const auto& prop : r.proposals) {
    EXPECT_TRUE(legal_at(p, prop.schedule, "small"));
    EXPECT_TRUE(legal_at(p, prop.schedule, "bench"));
    EXPECT_TRUE(hashes.insert(schedule_hash(prop.schedule)).second) << "proposed twice";
    EXPECT_NE(std::find(r.ideas.begin(), r.ideas.end(), prop.idea), r.ideas.end());
  }
}

// At the bench size alone (a GPU search), a GEMM's first round holds TF32 and 3xTF32
// tiles of both tensor-core instructions (the cost model ranks the wgmma 3xTF32 tiles
// behind several TF32 ones), so that a round cut short still times the kernels that a
// 1e-4 tolerance admits.
TEST(BuiltinProposer, FirstRoundHoldsTheCheapestSketchOfEachArithmetic) {
  const Problem& p = find_problem("gemm_add_relu");
  auto r = first_round_at_bench(p);
  std::set<std::string> precisions;
  for (const auto& prop : r.proposals)
    for (const auto& st : prop.idea.rfind("matmul sketch", 0) == 0 ? prop.schedule : json::array())
      if (st.value("op", "") == "tensor_core")
        precisions.insert(st.value("precision", "") + " " + st.value("shape", ""));
  for (const char* kind : {"tf32 m64nNk8", "3xtf32 m64nNk8", "tf32 m16n8k8", "3xtf32 m16n8k8"})
    EXPECT_TRUE(precisions.count(kind)) << kind;
}

// Each sketch of the first round is proposed under its own description: a candidate's
// idea in the store names its own tile, its instruction and its precision.
TEST(BuiltinProposer, EachSketchIsProposedUnderItsOwnDescription) {
  const Problem& p = find_problem("conv2d");
  auto r = first_round_at_bench(p);
  int sketches = 0;
  std::set<std::string> ideas;
  for (const auto& prop : r.proposals) {
    if (prop.idea.rfind("convolution sketch", 0) != 0) continue;
    ++sketches;
    ideas.insert(prop.idea);
    EXPECT_NE(std::find(r.ideas.begin(), r.ideas.end(), prop.idea), r.ideas.end());
    std::string instruction, precision;
    for (const auto& st : prop.schedule)
      if (st.value("op", "") == "tensor_core") {
        instruction = st.value("shape", "") == "m64nNk8" ? "wgmma" : "mma.sync";
        precision = st.value("precision", "");
      }
    if (instruction.empty()) {
      EXPECT_EQ(prop.idea.find("tensor cores"), std::string::npos) << prop.idea;
    } else {
      EXPECT_NE(prop.idea.find("(" + instruction + " " + precision + ")"), std::string::npos)
          << prop.idea << " holds a " << instruction << " " << precision << " tile";
    }
  }
  // Two idea slots of four sketches each, every one its own idea.
  EXPECT_EQ(sketches, 8);
  EXPECT_EQ(ideas.size(), 8u);
}

// RMS normalisation over the channels (KernelBench level 1 #36): the one-block-per-row
// sketches stage a whole row set that needs 1 MB of shared memory at the bench size. The
// first round proposes only sketches that lower and fit.
TEST(BuiltinProposer, FirstRoundProposesOnlySketchesThatFitABlock) {
  const Problem p =
      load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/level1/36_RMSNorm_.json");
  auto fits = [&](const json& steps) {
    Schedule s = Schedule::from_json(p.context("bench"), steps);
    return !shared_memory_error(make_bundle(lower(s, p.name)), "bench");
  };
  int unfit = 0;
  for (const auto& s : class_sketches(p, classify_pipeline(p.pipeline)))
    if (validate_schedule(p.context("bench"), s.schedule).ok && !fits(s.schedule)) ++unfit;
  ASSERT_GT(unfit, 0) << "no sketch of this file is too large for a block any more: pick another file";
  auto r = first_round_at_bench(p);
  int sketches = 0;
  for (const auto& prop : r.proposals) {
    if (prop.idea.find(" sketch: ") == std::string::npos) continue;
    ++sketches;
    EXPECT_TRUE(fits(prop.schedule)) << prop.idea;
  }
  EXPECT_GE(sketches, 4);
}

TEST(BuiltinProposer, LaterRoundsMutateTheBestAndNameTheirParents) {
  const Problem& p = find_problem("softmax");
  BuiltinProposer proposer(p, {});
  ProposalContext ctx;
  ctx.round = 1;
  TriedCandidate best;
  best.schedule = validate_schedule(p.context("small"), p.baseline_schedule).steps;
  best.candidate_id = 42;
  best.cost = 1.0;
  ctx.best = {best};
  auto r = proposer.propose(ctx, 4, 3);
  ASSERT_FALSE(r.proposals.empty());
  for (const auto& prop : r.proposals) {
    ASSERT_TRUE(prop.parent);
    EXPECT_EQ(*prop.parent, 42);
    EXPECT_NE(schedule_hash(prop.schedule), schedule_hash(best.schedule));
    EXPECT_TRUE(legal_at(p, prop.schedule, "bench"));
  }
  // Ideas name their moves in words.
  for (const auto& idea : r.ideas) EXPECT_GT(idea.size(), 10u);
}

}  // namespace
}  // namespace cusched::search
