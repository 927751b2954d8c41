// Every problem's automatic baseline and reference schedule lower at the bench size and
// NVRTC compiles their bundles to non-empty sm_90a CUBINs (the reference in float64, as
// the GPU verification builds it). No GPU is needed.
#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/automatic_baseline.h"
#include "problems/problem.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

TEST(AutomaticBaselineKernels, BaselineAndReferenceCompileToSm90aCubins) {
  CompileOptions o;
  o.arch = "sm_90a";
  for (const auto& p : all_problems()) {
    SCOPED_TRACE(p.name);
    const ScheduleContext ctx = p.context("bench");
    KernelBundle baseline = make_bundle(lower(Schedule::from_json(ctx, automatic_baseline(p.pipeline)), p.name));
    EXPECT_GT(compile_bundle(baseline, o).cubin.size(), 1000u);
    KernelBundle reference = make_bundle(lower(reference_schedule(ctx), p.name), EmitOptions{true});
    EXPECT_GT(compile_bundle(reference, o).cubin.size(), 1000u);
  }
}

}  // namespace
}  // namespace cusched::runtime
