#include "runtime/nvrtc_compiler.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <unistd.h>

namespace cusched::runtime {
namespace {

class NvrtcCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_dir_ =
        std::filesystem::temp_directory_path() / ("cusched-nvrtc-test-" + std::to_string(getpid()) + "-" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(cache_dir_);
    options_.cache_dir = cache_dir_.string();
  }
  void TearDown() override { std::filesystem::remove_all(cache_dir_); }

  std::filesystem::path cache_dir_;
  CompileOptions options_;
};

const char* kScale = R"(
#include "scale.h"
extern "C" __global__ void scale(float* out, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * kFactor;
}
extern "C" __global__ void staged(float* out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}
)";

const std::map<std::string, std::string> kHeaders{{"scale.h", "constexpr float kFactor = 3.0f;\n"}};

TEST_F(NvrtcCompilerTest, CompilesToNonEmptySm90aCubinWithInMemoryHeader) {
  CompiledModule m = compile_cuda(kScale, kHeaders, options_);
  EXPECT_GT(m.cubin.size(), 0u);
  // A CUBIN is an ELF file.
  ASSERT_GE(m.cubin.size(), 4u);
  EXPECT_EQ(m.cubin.substr(0, 4), std::string("\x7f"
                                              "ELF"));
  EXPECT_EQ(m.arch, "sm_90a");
  EXPECT_FALSE(m.cache_hit);
}

TEST_F(NvrtcCompilerTest, ReportsPtxasResourcesPerKernel) {
  CompiledModule m = compile_cuda(kScale, kHeaders, options_);
  ASSERT_EQ(m.resources.size(), 2u) << m.log;
  for (const auto& r : m.resources) {
    EXPECT_EQ(r.arch, "sm_90a");
    EXPECT_GT(r.registers, 0) << r.kernel;
  }
  const auto& staged = m.resources[0].kernel == "staged" ? m.resources[0] : m.resources[1];
  EXPECT_EQ(staged.kernel, "staged");
  EXPECT_EQ(staged.smem_bytes, 1024);
  EXPECT_EQ(staged.barriers, 1);
  nlohmann::json report = m.report();
  EXPECT_EQ(report["kernels"].size(), 2u);
  EXPECT_EQ(report["arch"], "sm_90a");
}

TEST_F(NvrtcCompilerTest, BrokenSourceGivesCompileErrorWithLog) {
  try {
    compile_cuda("extern \"C\" __global__ void k(float* p) { p[0] = undeclared_name; }\n", {}, options_, "broken.cu");
    FAIL() << "the broken kernel compiled";
  } catch (const CompileFailure& e) {
    EXPECT_EQ(e.error().code, "compile-error");
    EXPECT_NE(e.error().message.find("broken.cu"), std::string::npos);
    EXPECT_NE(e.log().find("undeclared_name"), std::string::npos) << e.log();
    EXPECT_FALSE(e.error().hint.empty());
  }
}

TEST_F(NvrtcCompilerTest, SecondCompileIsACacheHitWithTheSameCubin) {
  CompiledModule first = compile_cuda(kScale, kHeaders, options_);
  CompiledModule second = compile_cuda(kScale, kHeaders, options_);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(first.cubin, second.cubin);
  EXPECT_EQ(first.cache_key, second.cache_key);
  EXPECT_EQ(second.resources.size(), 2u);  // the report survives the cache
  EXPECT_TRUE(std::filesystem::exists(cache_dir_ / (first.cache_key + ".cubin")));
}

TEST_F(NvrtcCompilerTest, DifferentHeaderOrArchMissesTheCache) {
  CompiledModule first = compile_cuda(kScale, kHeaders, options_);
  CompiledModule other_header = compile_cuda(kScale, {{"scale.h", "constexpr float kFactor = 4.0f;\n"}}, options_);
  EXPECT_FALSE(other_header.cache_hit);
  EXPECT_NE(first.cache_key, other_header.cache_key);
  CompileOptions sm80 = options_;
  sm80.arch = "sm_80";
  CompiledModule other_arch = compile_cuda(kScale, kHeaders, sm80);
  EXPECT_FALSE(other_arch.cache_hit);
  EXPECT_GT(other_arch.cubin.size(), 0u);
}

TEST_F(NvrtcCompilerTest, CompilesABundle) {
  KernelBundle b;
  b.problem = "scale";
  b.source = kScale;
  b.headers = kHeaders;
  CompiledModule m = compile_bundle(b, options_);
  EXPECT_GT(m.cubin.size(), 0u);
}

TEST(ArchForComputeCapability, HopperGetsTheArchSpecificTarget) {
  EXPECT_EQ(arch_for_compute_capability(9, 0), "sm_90a");
  EXPECT_EQ(arch_for_compute_capability(8, 0), "sm_80");
  EXPECT_EQ(arch_for_compute_capability(8, 9), "sm_89");
}

TEST(NvrtcVersion, IsCuda13) { EXPECT_EQ(nvrtc_version().substr(0, 3), "13."); }

}  // namespace
}  // namespace cusched::runtime
