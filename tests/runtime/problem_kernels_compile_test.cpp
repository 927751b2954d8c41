// Every problem's baseline and best schedule lowers at the bench size and NVRTC compiles
// its bundle to a non-empty sm_90a CUBIN, as do the software-pipelined (cp.async)
// variants of the tensor-core and CUDA-core matmul tiles. No GPU is needed.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/module_state_scan.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/precision_scan.h"

namespace cusched::runtime {
namespace {

CompiledModule compile_at_bench(const Problem& p, const nlohmann::json& steps) {
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_bundle(b, o);
}

// ... and its PTX computes in no precision narrower than the bundle declares and keeps no
// state between launches.
TEST(ProblemKernels, BaselineAndBestCompileToSm90aCubins) {
  for (const auto& p : all_problems()) {
    for (const auto* steps : {&p.baseline_schedule, &p.best_schedule}) {
      SCOPED_TRACE(p.name + (steps == &p.best_schedule ? " best" : " baseline"));
      CompiledModule m = compile_at_bench(p, *steps);
      EXPECT_GT(m.cubin.size(), 1000u);
      KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), *steps), p.name));
      std::set<DType> dtypes;
      for (const auto& buf : b.buffers) dtypes.insert(buf.dtype);
      auto use = undeclared_precision(m.ptx, admitted_precisions(b.precision, dtypes));
      EXPECT_FALSE(use.has_value()) << "declared " << b.precision << ", PTX line " << use->line << ": "
                                    << use->instruction;
      auto state = persistent_state(m.ptx);
      EXPECT_FALSE(state.has_value()) << persistent_state_message(*state);
    }
  }
}

TEST(ProblemKernels, PipelinedMatmulTilesCompileAndUseCpAsync) {
  const Problem& p = find_problem("matmul");
  nlohmann::json tc = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8);
  tc.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 3}});
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), tc), p.name));
  EXPECT_NE(b.source.find("cusched::cp_async_16("), std::string::npos);
  EXPECT_NE(b.source.find("cusched::cp_async_wait<2>()"), std::string::npos);
  EXPECT_GT(compile_at_bench(p, tc).cubin.size(), 1000u);
}

// Only the pipeline's inputs stay fixed while a dependent kernel runs, so only they are
// read through `const T* __restrict__` (which lets the compiler use non-coherent loads
// that ptxas may hoist above griddepcontrol.wait); a buffer an earlier kernel writes is
// read through a plain `const T*`.
TEST(ProblemKernels, OnlyInputsAreReadThroughRestrictPointers) {
  const std::regex param(R"((const )?([A-Za-z_0-9 ]+)\* (__restrict__ )?(\w+)[,)])");
  int plain_reads = 0;
  for (const auto& p : all_problems()) {
    for (const auto* steps : {&p.baseline_schedule, &p.best_schedule}) {
      SCOPED_TRACE(p.name + (steps == &p.best_schedule ? " best" : " baseline"));
      KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), *steps), p.name));
      std::set<std::string> inputs;
      for (const auto& buf : b.buffers)
        if (buf.role == BufferRole::Input) inputs.insert(buf.name);
      for (std::sregex_iterator it(b.source.begin(), b.source.end(), param), end; it != end; ++it) {
        const auto& m = *it;
        if (!m[1].matched) continue;  // stored buffers
        const std::string name = m[4];
        EXPECT_EQ(m[3].matched, inputs.count(name) == 1) << "read-only parameter " << m.str();
        if (!m[3].matched) ++plain_reads;
      }
    }
  }
  EXPECT_GT(plain_reads, 0) << "no problem has a kernel that reads another kernel's output";
}

}  // namespace
}  // namespace cusched::runtime
