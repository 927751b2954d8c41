// `cusched export` of a kernel with tensor maps, built, and run on the GPU: the matmul tile on the
// tensor memory accelerator at 256 x 256 x 128, exported, built by nvcc together with a
// small program that fills A and B, launches through the exported cusched_launch (which
// encodes the tensor maps) and compares C with the product computed on the host. The
// values are multiples of 1/4 below 2, exact in TF32, and their sums are exact in f32.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/cuda_driver.h"
#include "search/export.h"

namespace cusched {
namespace {

const char* kDriverProgram = R"(
#include <cstdio>
#include <vector>
int main() {
  const int M = 256, N = 256, K = 128;
  std::vector<float> a(M * K), b(K * N), c(M * N, -1.0f);
  for (int i = 0; i < M * K; ++i) a[i] = 0.25f * static_cast<float>(i % 7 - 3);
  for (int i = 0; i < K * N; ++i) b[i] = 0.25f * static_cast<float>(i % 5 - 2);
  float *da, *db, *dc;
  cudaMalloc(&da, a.size() * 4);
  cudaMalloc(&db, b.size() * 4);
  cudaMalloc(&dc, c.size() * 4);
  cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  const cudaError_t launched = cusched_launch(da, db, dc, 0);
  const cudaError_t ran = cudaDeviceSynchronize();
  if (launched != cudaSuccess || ran != cudaSuccess) {
    std::printf("launch: %s, run: %s\n", cudaGetErrorString(launched), cudaGetErrorString(ran));
    return 2;
  }
  cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += static_cast<double>(a[i * K + k]) * b[k * N + j];
      if (c[i * N + j] != want && wrong++ < 3) std::printf("C(%d, %d) = %g, want %g\n", i, j, c[i * N + j], want);
    }
  std::printf("%d wrong of %d\n", wrong, M * N);
  return wrong ? 1 : 0;
}
)";

TEST(GpuExport, AnExportedKernelWithTensorMapsRunsAndMatches) {
  const char* env = std::getenv("CUSCHED_NVCC");
  const std::string nvcc = env && *env ? env : "/usr/local/cuda/bin/nvcc";
  if (access(nvcc.c_str(), X_OK) != 0) GTEST_SKIP() << nvcc << " is not installed (set CUSCHED_NVCC).";
  Problem p = find_problem("matmul");
  p.sizes["export"] = {{"M", 256}, {"N", 256}, {"K", 128}};
  const auto steps = wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 256, 2, 4, "tf32", "tensor");
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("export"), steps), p.name));
  ASSERT_EQ(b.launches.at(0).tensor_maps.size(), 2u);
  const std::string cu = search::export_kernel(b, {"A @ B", 1e-2, 1e-2, "matmul", "kernel.cu"});
  auto dir = std::filesystem::temp_directory_path() / ("cusched_gpu_export_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernel.cu") << cu << kDriverProgram;
  const std::string build = nvcc + " -gencode arch=compute_90a,code=sm_90a -o " + (dir / "run").string() + " " +
                            (dir / "kernel.cu").string() + " > " + (dir / "log").string() + " 2>&1";
  const auto read_log = [&] {
    std::ifstream f(dir / "log");
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  ASSERT_EQ(std::system(build.c_str()), 0) << read_log();
  if (auto err = runtime::driver_available()) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "Built; " << err->message;
  }
  const int rc = std::system(((dir / "run").string() + " > " + (dir / "log").string() + " 2>&1").c_str());
  EXPECT_EQ(rc, 0) << read_log();
  std::cout << read_log();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cusched
