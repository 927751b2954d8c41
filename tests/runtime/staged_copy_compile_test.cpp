// The staged copies of the matmul tiles compile for sm_90a and use the instructions
// they are meant to: float4 accesses for synchronous copies, 16-byte cp.async.cg for
// the cp.async pipeline, and cp.async.bulk with mbarrier waits for the bulk pipeline.
// The PTX is checked (NVRTC for compute_90a) and the CUBIN built (sm_90a). No GPU is needed.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

KernelBundle bundle_at_bench(const nlohmann::json& steps) {
  const Problem& p = find_problem("matmul");
  return make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
}

// The PTX that NVRTC makes of the bundle for compute_90a.
std::string ptx_of(const KernelBundle& b) {
  std::vector<const char*> names, bodies;
  for (const auto& [name, body] : b.headers) {
    names.push_back(name.c_str());
    bodies.push_back(body.c_str());
  }
  nvrtcProgram prog = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&prog, b.source.c_str(), "staged_copy.cu", static_cast<int>(names.size()), bodies.data(),
                               names.data()),
            NVRTC_SUCCESS);
  std::vector<std::string> opts{"--gpu-architecture=compute_90a", "-std=c++17"};
  for (const auto& dir : cuda_include_dirs()) opts.push_back("-I" + dir);
  std::vector<const char*> opt_ptrs;
  for (const auto& o : opts) opt_ptrs.push_back(o.c_str());
  std::string ptx;
  if (nvrtcCompileProgram(prog, static_cast<int>(opt_ptrs.size()), opt_ptrs.data()) == NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetPTXSize(prog, &size);
    ptx.assign(size, '\0');
    nvrtcGetPTX(prog, ptx.data());
  } else {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    ADD_FAILURE() << log;
  }
  nvrtcDestroyProgram(&prog);
  return ptx;
}

size_t cubin_bytes(const KernelBundle& b) {
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_bundle(b, o).cubin.size();
}

nlohmann::json pipelined_tile(const std::string& engine) {
  nlohmann::json steps = tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8);
  steps.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 3}, {"engine", engine}});
  return steps;
}

TEST(StagedCopyCompile, SynchronousTileCopiesWithFloat4) {
  KernelBundle b = bundle_at_bench(tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8));
  EXPECT_NE(b.source.find("*reinterpret_cast<const float4*>(&A["), std::string::npos) << b.source;
  EXPECT_NE(b.source.find("*reinterpret_cast<const float4*>(&B["), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_TRUE(ptx.find("ld.global.v4.f32") != std::string::npos || ptx.find("ld.global.nc.v4.f32") != std::string::npos);
  EXPECT_NE(ptx.find("st.shared.v4.f32"), std::string::npos);
  EXPECT_GT(cubin_bytes(b), 1000u);
}

TEST(StagedCopyCompile, CpAsyncPipelineCopies16BytesPerInstruction) {
  KernelBundle b = bundle_at_bench(pipelined_tile("cp.async"));
  EXPECT_NE(b.source.find("cusched::cp_async_16("), std::string::npos);
  EXPECT_EQ(b.source.find("cusched::cp_async_4("), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(ptx.find("], 16;"), std::string::npos);
  EXPECT_GT(cubin_bytes(b), 1000u);
}

TEST(StagedCopyCompile, BulkPipelineUsesTheBulkCopyEngineAndMbarriers) {
  KernelBundle b = bundle_at_bench(pipelined_tile("bulk"));
  EXPECT_NE(b.source.find("cusched::bulk_copy_global_to_shared("), std::string::npos);
  EXPECT_NE(b.source.find("cusched::mbarrier_wait_parity("), std::string::npos);
  const std::string ptx = ptx_of(b);
  EXPECT_NE(ptx.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.try_wait.parity"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.arrive.expect_tx"), std::string::npos);
  EXPECT_NE(ptx.find("mbarrier.init"), std::string::npos);
  EXPECT_GT(cubin_bytes(b), 1000u);
}

}  // namespace
}  // namespace cusched::runtime
