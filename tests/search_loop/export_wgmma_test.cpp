// `cusched export` of a warpgroup tensor-core kernel: the matmul best schedule at the
// bench size (its wgmma function, 1024-byte aligned dynamic shared memory of 196 KiB)
// exports to one standalone .cu that nvcc compiles for sm_90a; the same tile on the tensor
// memory accelerator exports with a launcher that encodes its tensor maps, and compiles.
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

// nvcc's status compiling `cu_text` for sm_90a, with its log; -1 when nvcc is absent.
int compile_with_nvcc(const std::string& cu_text, const std::string& tag, std::string* log_text) {
  const std::string nvcc = CUSCHED_NVCC;
  if (access(nvcc.c_str(), X_OK) != 0) return -1;
  auto dir = std::filesystem::temp_directory_path() / ("cusched_export_" + tag + "_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernel.cu") << cu_text;
  const std::string cmd = nvcc + " -c -gencode arch=compute_90a,code=sm_90a -o " + (dir / "kernel.o").string() + " " +
                          (dir / "kernel.cu").string() + " > " + (dir / "nvcc.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "nvcc.log");
  *log_text = std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  if (rc == 0 && std::filesystem::file_size(dir / "kernel.o") == 0) *log_text += "empty object file";
  std::filesystem::remove_all(dir);
  return rc;
}

// The matmul's bundle at the bench size for `steps`, and `cusched export`'s text of it.
KernelBundle matmul_bundle(const nlohmann::json& steps) {
  const Problem& p = find_problem("matmul");
  return make_bundle(lower(Schedule::from_json(p.context("bench"), steps), p.name));
}

std::string exported(const KernelBundle& b) {
  return search::export_kernel(b, {"A @ B", 1e-2, 1e-2, "matmul", "kernel.cu"});
}

// The matmul best's tile on the tensor memory accelerator.
nlohmann::json tensor_tile() {
  return wgmma_tile_steps("C", "j", "i", "k", "B", 0, "A", "", 256, 2, 4, "tf32", "tensor");
}

TEST(ExportWgmma, MatmulBestExportsAndCompilesWithNvcc) {
  KernelBundle b = matmul_bundle(find_problem("matmul").best_schedule);
  ASSERT_EQ(b.launches.size(), 1u);
  EXPECT_GT(b.launches[0].dynamic_smem_bytes, 48 * 1024);
  const std::string cu_text = exported(b);
  EXPECT_NE(cu_text.find("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"), std::string::npos);
  EXPECT_EQ(cu_text.find("#include <cuda.h>"), std::string::npos) << "no tensor maps, no driver header";
  EXPECT_EQ(cu_text.find("cusched_encode_tensor_map"), std::string::npos);
  std::string log;
  const int rc = compile_with_nvcc(cu_text, "wgmma", &log);
  if (rc < 0) GTEST_SKIP() << CUSCHED_NVCC << " is not installed.";
  EXPECT_EQ(rc, 0) << log;
}

// The same tile on the tensor memory accelerator: the launcher encodes A's and B's tensor
// maps (dimensions innermost first, the runtime's settings) through the driver's
// cuTensorMapEncodeTiled and passes them after the buffer pointers; it compiles.
TEST(ExportWgmma, TensorMapsAreEncodedByTheLauncher) {
  KernelBundle b = matmul_bundle(tensor_tile());
  ASSERT_EQ(b.launches.at(0).tensor_maps.size(), 2u);
  const std::string cu_text = exported(b);
  const std::string k = b.launches[0].kernel;
  EXPECT_NE(cu_text.find("alignas(64) CUtensorMap " + k + "_A_shared_map;"), std::string::npos) << cu_text;
  // A (4096 x 4096 f32): rows of 16384 bytes; its box 256 rows by 32 of K, swizzled.
  EXPECT_NE(cu_text.find("const cuuint64_t dims[] = {4096, 4096}, strides[] = {16384};"), std::string::npos);
  EXPECT_NE(cu_text.find("const cuuint32_t box[] = {32, 256};"), std::string::npos) << cu_text;
  EXPECT_NE(cu_text.find("CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void*)A, dims, strides, box, true);"),
            std::string::npos);
  EXPECT_NE(
      cu_text.find("(void*)&A, (void*)&B, (void*)&C, (void*)&" + k + "_A_shared_map, (void*)&" + k + "_B_shared_map"),
      std::string::npos)
      << cu_text;
  EXPECT_NE(cu_text.find("cudaError_t cusched_launch("), std::string::npos);
  std::string log;
  const int rc = compile_with_nvcc(cu_text, "tensor_maps", &log);
  if (rc < 0) GTEST_SKIP() << CUSCHED_NVCC << " is not installed.";
  EXPECT_EQ(rc, 0) << log;
}

TEST(ExportWgmma, AMapOfAnUndescribableBufferIsRefusedWithTheReason) {
  KernelBundle b = matmul_bundle(tensor_tile());
  b.launches.at(0).tensor_maps.at(0).box.push_back(1);  // a box of 3 dimensions for a matrix
  std::string message;
  EXPECT_EQ(test::error_code([&] { exported(b); }, &message), "export-tensor-maps");
  EXPECT_NE(message.find("A_shared_map"), std::string::npos) << message;
}

}  // namespace
}  // namespace cusched
