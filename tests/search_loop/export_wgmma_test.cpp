// `cusched export` of a warpgroup tensor-core kernel: the matmul best schedule at the
// bench size (its wgmma function, 1024-byte aligned dynamic shared memory of 196 KiB)
// exports to one standalone .cu that nvcc compiles for sm_90a; the same tile on the tensor
// memory accelerator is refused, since the standalone launcher encodes no tensor maps.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "search/export.h"
#include "tests/user_error_code.h"

namespace cusched {
namespace {

TEST(ExportWgmma, MatmulBestExportsAndCompilesWithNvcc) {
  const Problem& p = find_problem("matmul");
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), p.best_schedule), p.name));
  ASSERT_EQ(b.launches.size(), 1u);
  EXPECT_GT(b.launches[0].dynamic_smem_bytes, 48 * 1024);
  const std::string cu_text = search::export_kernel(b, {"A @ B", 1e-2, 1e-2, "matmul", "kernel.cu"});
  EXPECT_NE(cu_text.find("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"), std::string::npos);
  const std::string nvcc = CUSCHED_NVCC;
  if (access(nvcc.c_str(), X_OK) != 0) GTEST_SKIP() << nvcc << " is not installed.";
  auto dir = std::filesystem::temp_directory_path() / ("cusched_export_wgmma_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernel.cu") << cu_text;
  const std::string cmd = nvcc + " -c -gencode arch=compute_90a,code=sm_90a -o " + (dir / "kernel.o").string() + " " +
                          (dir / "kernel.cu").string() + " > " + (dir / "nvcc.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "nvcc.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << text;
  EXPECT_GT(std::filesystem::file_size(dir / "kernel.o"), 0u);
  std::filesystem::remove_all(dir);
}

TEST(ExportWgmma, KernelsWithTensorMapsAreRefusedWithTheReason) {
  const Problem& p = find_problem("matmul");
  const auto steps = wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 256, 2, 4, "tf32", "tensor");
  KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
  ASSERT_FALSE(b.launches.at(0).tensor_maps.empty());
  std::string message;
  EXPECT_EQ(test::error_code([&] { search::export_kernel(b, {"A @ B", 1e-2, 1e-2, "matmul", "kernel.cu"}); }, &message),
            "export-tensor-maps");
  EXPECT_NE(message.find("A_shared_map"), std::string::npos) << message;
}

}  // namespace
}  // namespace cusched
