// Tensor-core tiles at the bench size compile for sm_90a with their operand fragments
// loaded by ldmatrix, and with cache_write scope shared their output tile written to
// global memory with 16-byte vector stores. The PTX (NVRTC for compute_90a) is checked
// and the CUBIN (sm_90a) built. No GPU is needed.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

KernelBundle bench_bundle(const std::string& problem, const nlohmann::json& steps) {
  const Problem& p = find_problem(problem);
  return make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
}

// NVRTC's PTX for compute_90a, or "" with a test failure holding the log.
std::string ptx(const KernelBundle& b) {
  std::vector<const char*> header_names, header_bodies;
  for (const auto& [name, body] : b.headers) {
    header_names.push_back(name.c_str());
    header_bodies.push_back(body.c_str());
  }
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, b.source.c_str(), "tensor_core_loads.cu", static_cast<int>(header_names.size()),
                         header_bodies.data(), header_names.data()) != NVRTC_SUCCESS) {
    ADD_FAILURE() << "nvrtcCreateProgram failed";
    return "";
  }
  std::vector<std::string> options{"--gpu-architecture=compute_90a", "-std=c++17"};
  for (const auto& dir : cuda_include_dirs()) options.push_back("-I" + dir);
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());
  std::string text;
  size_t size = 0;
  if (nvrtcCompileProgram(prog, static_cast<int>(option_ptrs.size()), option_ptrs.data()) == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(prog, &size);
    text.assign(size, '\0');
    nvrtcGetPTX(prog, text.data());
  } else {
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    ADD_FAILURE() << log;
  }
  nvrtcDestroyProgram(&prog);
  return text;
}

size_t sm90a_cubin_bytes(const KernelBundle& b) {
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_bundle(b, o).cubin.size();
}

nlohmann::json shared_output(nlohmann::json steps, const std::string& stage) {
  steps.push_back({{"op", "cache_write"}, {"stage", stage}, {"scope", "shared"}});
  return steps;
}

TEST(TensorCoreLoadsCompile, MatmulBestLoadsAWithLdmatrix) {
  KernelBundle b = bench_bundle("matmul", find_problem("matmul").best_schedule);
  EXPECT_NE(b.source.find("cusched::ldmatrix_x4("), std::string::npos) << b.source;
  const std::string p = ptx(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("mma.sync.aligned.m16n8k8"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, GemmWithTransposedWeightLoadsBothOperandsWithLdmatrix) {
  // weight is (OUT, IN): B's fragment rows run along k, so it loads with .x2 as well.
  KernelBundle b = bench_bundle("gemm_add_relu", find_problem("gemm_add_relu").best_schedule);
  const std::string p = ptx(b);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x2.shared.b16"), std::string::npos);
  EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
}

TEST(TensorCoreLoadsCompile, SharedOutputTileStoresWithVectorStores) {
  for (const char* problem : {"matmul", "bmm"}) {
    SCOPED_TRACE(problem);
    KernelBundle b = bench_bundle(problem, shared_output(find_problem(problem).best_schedule, "C"));
    EXPECT_NE(b.source.find("C_tile"), std::string::npos) << b.source;
    const std::string p = ptx(b);
    EXPECT_NE(p.find("st.global.v4.f32"), std::string::npos) << "the tile goes out 16 bytes at a time";
    EXPECT_NE(p.find("st.shared.v2.f32"), std::string::npos) << "accumulator pairs go into the tile 8 bytes at a time";
    EXPECT_NE(p.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
    EXPECT_GT(sm90a_cubin_bytes(b), 1000u);
  }
}

}  // namespace
}  // namespace cusched::runtime
