// fuse_epilogue lowered from the DSL and run in the interpreter at the small sizes: a
// GEMM's bias and activation folded into the GEMM's final store on every path that
// stores a reduction's values (serial accumulators, a combine across threads, mma.sync
// and wgmma tiles, a shared output tile), one kernel and no global buffer for the
// product; and the step's refusals, each at the step that causes it.
#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/interp_verification.h"
#include "tests/property/schedule_checks.h"
#include "tests/property/staged_tile_schedules.h"

namespace cusched {
namespace {

using nlohmann::json;

LoweredProgram lowered(const Problem& p, const json& steps) {
  return lower(Schedule::from_json(p.context("small"), steps), p.name);
}

bool has_buffer(const LoweredProgram& program, const std::string& name) {
  for (const auto& b : program.buffers)
    if (b.name == name) return true;
  return false;
}

// The code of the error that applying `steps` (and lowering them) raises, "" if none,
// with the step it names.
std::pair<std::string, int> refusal(const Problem& p, const json& steps) {
  const auto e = testing::lowering_failure(p, steps);
  if (!e) return {"", -1};
  EXPECT_FALSE(e->hint.empty()) << e->code;
  return {e->code, e->step};
}

struct StorePath {
  std::string name;
  json g_steps;  // the product's schedule
};

// The ways the product G(i, j) = sum(k, X(i, k) * weight(j, k)) stores its values.
std::vector<StorePath> store_paths(const Problem& p) {
  const TensorCoreTile tile{32, 16, 16, 8, 8, "tf32"};
  json across_threads = json::parse(R"([
    {"op": "bind", "stage": "G", "loop": "i", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "G", "loop": "j", "axis": "blockIdx.x"},
    {"op": "split", "stage": "G", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "G", "loops": ["i", "j", "ki", "ko"]},
    {"op": "cross_thread_reduce", "stage": "G", "loop": "ki", "kind": "warp"}
  ])");
  json mma = tensor_core_tile_steps("G", "i", "j", "k", "X", 4, "weight", 4, "", tile);
  return {{"serial accumulators (baseline)", p.baseline_schedule},
          {"a combine across a warp", across_threads},
          {"mma.sync tiles", mma},
          {"mma.sync tiles through a shared output tile", testing::with_shared_output(mma, "G")},
          {"wgmma tiles (best)", p.best_schedule}};
}

TEST(FuseEpilogue, GemmEpiloguesVerifyOnEveryStorePathInOneKernel) {
  for (const char* name : {"gemm_add_relu", "gemm_scale_leakyrelu"}) {
    const Problem& p = find_problem(name);
    for (const auto& path : store_paths(p)) {
      SCOPED_TRACE(std::string(name) + ", " + path.name);
      const json steps = with_folded_epilogue(path.g_steps, "Y");
      const auto r = testing::verify_small(p, steps, 5);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
      const LoweredProgram program = lowered(p, steps);
      EXPECT_EQ(program.kernels.size(), 1u) << "the epilogue runs in the product's kernel";
      EXPECT_FALSE(has_buffer(program, "G")) << "the product never reaches global memory";
      EXPECT_TRUE(has_buffer(program, "Y"));
    }
  }
}

TEST(FuseEpilogue, ASizeInTheFoldedExpressionTakesItsValue) {
  // cross_entropy's mean: Loss = Total / N, folded into the sum Total.
  const Problem& p = find_problem("cross_entropy");
  const json steps = with_folded_epilogue(p.baseline_schedule, "Loss");
  const auto r = testing::verify_small(p, steps, 9);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << r.message << r.error.message;
  EXPECT_FALSE(has_buffer(lowered(p, steps), "Total"));
}

TEST(FuseEpilogue, WithoutTheFoldTheProductIsStoredAndReadBack) {
  const Problem& p = find_problem("gemm_add_relu");
  const LoweredProgram program = lowered(p, p.best_schedule);
  EXPECT_EQ(program.kernels.size(), 2u);
  EXPECT_TRUE(has_buffer(program, "G"));
}

TEST(FuseEpilogue, TheFoldedExpressionTakesTheStageSettingsOfTheConsumer) {
  // The consumer's expression is evaluated where the product's value is final: a select
  // on it (leaky ReLU) and a broadcast operand (bias) both read at the stored point.
  const Problem& p = find_problem("gemm_scale_leakyrelu");
  const std::string ir = testing::ir_of(p, with_folded_epilogue(p.baseline_schedule, "Y"));
  const auto at = ir.find(" Y[");
  ASSERT_NE(at, std::string::npos) << ir;
  const std::string store = ir.substr(at, ir.find('\n', at) - at);
  for (const char* part : {"select(", "G_acc[", "bias["}) EXPECT_NE(store.find(part), std::string::npos) << store;
}

TEST(FuseEpilogue, RefusalsNameTheirStep) {
  const Problem& gemm = find_problem("gemm_add_relu");
  // Y scheduled before the fold.
  json scheduled = json::array({{{"op", "bind"}, {"stage", "Y"}, {"loop", "i"}, {"axis", "blockIdx.x"}},
                                {{"op", "fuse_epilogue"}, {"stage", "Y"}}});
  EXPECT_EQ(refusal(gemm, scheduled), (std::pair<std::string, int>{"epilogue-stage-scheduled", 1}));
  // The product itself is a reduction, not an epilogue.
  EXPECT_EQ(refusal(gemm, json::array({{{"op", "fuse_epilogue"}, {"stage", "G"}}})).first, "epilogue-not-pointwise");
  // rmsnorm's output reads its row statistic at (i), not at its own point (i, j), and
  // its input besides.
  const Problem& rms = find_problem("rmsnorm");
  std::string out;
  for (const auto& f : rms.pipeline.stages())
    if (rms.pipeline.is_output(f->name)) out = f->name;
  const auto rms_refusal = refusal(rms, json::array({{{"op", "fuse_epilogue"}, {"stage", out}}})).first;
  EXPECT_TRUE(rms_refusal == "epilogue-index-mismatch" || rms_refusal == "epilogue-reads-several-stages")
      << rms_refusal;
  // softmax's output reads two reductions.
  const Problem& softmax = find_problem("softmax");
  EXPECT_EQ(refusal(softmax, json::array({{{"op", "fuse_epilogue"}, {"stage", "Y"}}})).first,
            "epilogue-reads-several-stages");
}

TEST(FuseEpilogue, AnEpilogueWhoseProductIsAlsoReadElsewhereIsRefused) {
  // gemm_gelu_softmax: the product's GELU is read by the row maximum, the row sum and the
  // output, so its values must be stored.
  const Problem& p = find_problem("gemm_gelu_softmax");
  std::string out;
  for (const auto& f : p.pipeline.stages())
    if (p.pipeline.is_output(f->name)) out = f->name;
  const std::string code = refusal(p, json::array({{{"op", "fuse_epilogue"}, {"stage", out}}})).first;
  EXPECT_TRUE(code == "epilogue-reads-several-stages" || code == "epilogue-producer-shared") << code;
}

}  // namespace
}  // namespace cusched
