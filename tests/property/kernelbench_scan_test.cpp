// The five KernelBench scan problems (problems/kernelbench/level1/89 .. 93): each file
// reads back to the stage it writes, its automatic baseline verifies in the CPU
// interpreter at the small size and at odd line lengths, and at the bench size its
// baseline and its float64 reference lower and NVRTC compiles them to sm_90a CUBINs.
#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/expr_text.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched {
namespace {

struct ScanFile {
  const char* file;
  const char* stage;  // the stage as the file writes it
};

const ScanFile kFiles[] = {
    {"89_cumsum", "Y(i in B, j in N) = cumsum(j: X(i, j))"},
    {"90_cumprod", "Y(i in B, j in N) = cumprod(j: X(i, j))"},
    {"91_cumsum_reverse", "Y(i in B, j in N) = cumsum(j, reverse: X(i, j))"},
    {"92_cumsum_exclusive", "Y(i in B, j in N) = cumsum(j, exclusive: X(i, j))"},
    {"93_masked_cumsum", "Y(i in B, j in N) = cumsum(j: X(i, j) * f32(M(i, j)))"},
};

Problem load(const ScanFile& f) {
  return load_problem_file(std::string(CUSCHED_SOURCE_DIR) + "/problems/kernelbench/level1/" + f.file + ".json");
}

class KernelBenchScan : public ::testing::TestWithParam<ScanFile> {};

TEST_P(KernelBenchScan, ReadsBackToItsScanAtKernelBenchsShape) {
  const Problem p = load(GetParam());
  ASSERT_EQ(p.pipeline.stages().size(), 1u);
  const FuncDef& y = *p.pipeline.stages()[0];
  EXPECT_TRUE(y.is_scan());
  EXPECT_EQ(stage_to_text(y), GetParam().stage);
  EXPECT_EQ(p.size("bench").at("B"), 32768);
  EXPECT_EQ(p.size("bench").at("N"), 32768);
  EXPECT_NE(p.notes.find("423217d9fda91e0c2d67e4a43bf62f96f6d104f1"), std::string::npos);
  EXPECT_NE(p.notes.find(std::string(GetParam().file) + ".py"), std::string::npos);
  for (const auto& in : p.inputs)
    if (in.name == "X") {
      EXPECT_EQ(in.standard.kind, "uniform");
      EXPECT_EQ(in.standard.a, 0);
      EXPECT_EQ(in.standard.b, 1);
    }
}

TEST_P(KernelBenchScan, AutomaticBaselineVerifiesInTheInterpreter) {
  Problem p = load(GetParam());
  const nlohmann::json steps = automatic_baseline(p.pipeline);
  uint64_t seed = 3;
  for (int64_t n : {int64_t{777}, int64_t{1}, int64_t{4097}}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    p.sizes["shape"] = {{"B", 3}, {"N", n}};
    auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("shape"), steps), "shape", seed++, 1);
    if (n == 1 && r.verdict == cusched::runtime::Verdict::reference_degenerate)
      continue;  // an exclusive scan of one element is all zeros
    EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message;
  }
  auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), steps), "small", 11, 2);
  EXPECT_EQ(r.verdict, cusched::runtime::Verdict::ok) << r.message;
}

TEST_P(KernelBenchScan, BaselineAndReferenceCompileAtTheBenchSize) {
  const Problem p = load(GetParam());
  runtime::CompileOptions o;
  o.arch = "sm_90a";
  const ScheduleContext ctx = p.context("bench");
  KernelBundle baseline = make_bundle(lower(Schedule::from_json(ctx, automatic_baseline(p.pipeline)), p.name));
  EXPECT_NE(baseline.source.find("cusched::block_exclusive_scan"), std::string::npos);
  EXPECT_GT(runtime::compile_bundle(baseline, o).cubin.size(), 1000u);
  KernelBundle reference = make_bundle(lower(reference_schedule(ctx), p.name), EmitOptions{true});
  EXPECT_GT(runtime::compile_bundle(reference, o).cubin.size(), 1000u);
}

INSTANTIATE_TEST_SUITE_P(Files, KernelBenchScan, ::testing::ValuesIn(kFiles),
                         [](const auto& info) { return std::string("kb") + info.param.file; });

}  // namespace
}  // namespace cusched
