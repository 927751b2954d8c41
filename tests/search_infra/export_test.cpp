#include "search/export.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dsl/error.h"
#include "search/store.h"
#include "synthetic_store.h"

using namespace cusched;
using namespace cusched::search;

namespace {

// y = x * scale over rows, with a scratch buffer that a second launch fills,
// a helper header that includes another one, and a zeroed accumulator.
KernelBundle small_bundle() {
  KernelBundle b;
  b.problem = "scale";
  b.schedule_hash = "00ff";
  b.headers["cusched/math.h"] =
      "#pragma once\n#include \"cusched/base.h\"\n__device__ inline float twice(float v) { return CUSCHED_TWO * v; }\n";
  b.headers["cusched/base.h"] = "#pragma once\n#define CUSCHED_TWO 2.0f\n";
  b.source =
      "#include \"cusched/math.h\"\n#include \"cusched/base.h\"\n"
      "extern \"C\" __global__ void scale_rows(const float* x, float* y, float* tmp) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < 256) { tmp[i] = twice(x[i]); }\n}\n"
      "extern \"C\" __global__ void sum_rows(const float* tmp, float* y, float* total) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < 256) { y[i] = tmp[i]; atomicAdd(total, tmp[i]); }\n}\n";
  b.buffers = {{"x", DType::f32, {16, 16}, BufferRole::Input, false},
               {"y", DType::f32, {16, 16}, BufferRole::Output, false},
               {"total", DType::f32, {1}, BufferRole::Output, true},
               {"tmp", DType::f32, {256}, BufferRole::Scratch, false}};
  b.launches = {{"scale_rows", {2, 1, 1}, {128, 1, 1}, 0, {"x", "y", "tmp"}},
                {"sum_rows", {2, 1, 1}, {128, 1, 1}, 64 * 1024, {"tmp", "y", "total"}}};
  return b;
}

}  // namespace

TEST(Export, AClusterOfSixteenBlocksIsAllowedItsNonPortableSize) {
  KernelBundle b = small_bundle();
  b.launches[0].cluster = 8;
  b.launches[1].cluster = 16;
  std::string s = export_kernel(b, {"(x * 2, (x * 2).sum().reshape(1))", 1e-4, 1e-4, "", "kernel.cu"});
  EXPECT_EQ(s.find("cudaFuncSetAttribute((const void*)scale_rows, cudaFuncAttributeNonPortableClusterSizeAllowed"),
            std::string::npos);
  EXPECT_NE(s.find("cudaFuncSetAttribute((const void*)sum_rows, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)"),
            std::string::npos);
  EXPECT_EQ(KernelBundle::from_json(b.to_json()).launches[1].cluster, 16);
}

TEST(Export, InlinesHeadersOnce) {
  std::string s = inline_headers(small_bundle());
  EXPECT_EQ(s.find("#include \"cusched/"), std::string::npos);
  EXPECT_EQ(s.find("#pragma once"), std::string::npos);
  size_t def = s.find("#define CUSCHED_TWO");
  ASSERT_NE(def, std::string::npos);
  EXPECT_EQ(s.find("#define CUSCHED_TWO", def + 1), std::string::npos) << "base.h must be inlined only once";
  EXPECT_LT(def, s.find("twice(float v)"));
}

TEST(Export, LauncherTakesInputsAndOutputsInBufferOrder) {
  std::string s = export_kernel(small_bundle(), {"(x * 2, (x * 2).sum().reshape(1))", 1e-4, 1e-4, "", "kernel.cu"});
  EXPECT_NE(s.find("cudaError_t cusched_launch(const float* x, float* y, float* total, cudaStream_t stream)"),
            std::string::npos);
  EXPECT_NE(s.find("cudaMallocAsync(reinterpret_cast<void**>(&tmp), 1024, stream)"), std::string::npos);
  EXPECT_NE(s.find("cudaMemsetAsync(total, 0, 4, stream)"), std::string::npos);
  EXPECT_NE(s.find("cudaFuncSetAttribute((const void*)sum_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536)"),
            std::string::npos);
  EXPECT_LT(s.find("(const void*)scale_rows"), s.find("(const void*)sum_rows"));
  // The first kernel launches plainly, the next as a programmatic dependent launch.
  EXPECT_NE(s.find("cudaLaunchKernel((const void*)scale_rows, dim3(2, 1, 1), dim3(128, 1, 1), args, 0, stream);"),
            std::string::npos)
      << s;
  const size_t ex = s.find("cudaLaunchKernelExC(&config, (const void*)sum_rows, args);");
  ASSERT_NE(ex, std::string::npos) << s;
  const size_t attr = s.rfind("cudaLaunchAttributeProgrammaticStreamSerialization", ex);
  ASSERT_NE(attr, std::string::npos);
  EXPECT_GT(attr, s.find("(const void*)scale_rows"));
  EXPECT_NE(s.find("config.dynamicSmemBytes = 65536;"), std::string::npos);
  EXPECT_EQ(s.find("NonPortableClusterSize"), std::string::npos) << "no kernel forms a cluster of more than 8 blocks";
  // PyTorch snippet in a trailing comment.
  auto snippet = s.find("/* PyTorch check");
  ASSERT_NE(snippet, std::string::npos);
  EXPECT_NE(s.find("load_inline(", snippet), std::string::npos);
  EXPECT_NE(s.find("expected = (x * 2, (x * 2).sum().reshape(1))", snippet), std::string::npos);
  EXPECT_NE(s.find("x = torch.randn((16, 16), device=\"cuda\", dtype=torch.float32)", snippet), std::string::npos);
  EXPECT_NE(s.find("mod.run(x, y, total)", snippet), std::string::npos);
  EXPECT_NE(s.find("atol=0.0001", snippet), std::string::npos);
  EXPECT_EQ(s.rfind("*/\n"), s.size() - 3);
}

TEST(Export, CompilesWithNvcc) {
  const std::string nvcc = CUSCHED_NVCC;
  if (access(nvcc.c_str(), X_OK) != 0) GTEST_SKIP() << nvcc << " is not installed.";
  auto dir = std::filesystem::path(cusched::search::testing::fresh_path("nvcc"));
  std::filesystem::create_directories(dir);
  auto cu = dir / "kernel.cu";
  std::ofstream(cu) << export_kernel(small_bundle(), {"x * 2", 1e-4, 1e-4, "", "kernel.cu"});
  std::string cmd = nvcc + " -c -gencode arch=compute_90a,code=sm_90a -o " + (dir / "kernel.o").string() + " " +
                    cu.string() + " > " + (dir / "nvcc.log").string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "nvcc.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << text;
  EXPECT_GT(std::filesystem::file_size(dir / "kernel.o"), 0u);
}

TEST(Export, RejectsBundlesThatCannotLaunch) {
  KernelBundle b = small_bundle();
  b.launches[0].args.push_back("nope");
  try {
    export_kernel(b);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "export-unknown-buffer");
  }
  b.launches.clear();
  EXPECT_THROW(export_kernel(b), UserError);
}

TEST(Export, FromStoreDefaultsToBestVerified) {
  Store s(cusched::search::testing::fresh_path("export.db"));
  RunInfo info;
  info.problem = "scale";
  info.size = "small";
  info.config = {{"torch_op", "x * 2"}};
  int64_t run = s.create_run(info);
  auto sched = [](int f) { return nlohmann::json::array({{{"op", "unroll"}, {"factor", f}}}); };
  int64_t slow = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, sched(1), ""}).id;
  int64_t fast = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, sched(2), ""}).id;
  int64_t bare = s.add_candidate({run, std::nullopt, std::nullopt, std::nullopt, sched(3), ""}).id;
  KernelBundle b1 = small_bundle(), b2 = small_bundle();
  b2.launches[0].block = {256, 1, 1};
  s.save_artifacts(slow, {b1.source, "", b1.to_json(), nullptr, nullptr});
  s.save_artifacts(fast, {b2.source, "", b2.to_json(), nullptr, nullptr});
  s.save_evaluation(cusched::search::testing::ok_eval(slow, 2.0));
  s.save_evaluation(cusched::search::testing::ok_eval(fast, 1.0));

  std::string best = export_candidate(s, std::nullopt, std::nullopt);
  EXPECT_NE(best.find("dim3(256, 1, 1)"), std::string::npos) << "the default export is the fastest verified candidate";
  EXPECT_NE(best.find("candidate " + std::to_string(fast)), std::string::npos);
  EXPECT_NE(best.find("expected = x * 2"), std::string::npos) << "torch_op comes from the run config";
  std::string chosen = export_candidate(s, slow, std::nullopt);
  EXPECT_NE(chosen.find("dim3(128, 1, 1)"), std::string::npos);

  auto code_of = [&](std::optional<int64_t> c, std::optional<int64_t> r) {
    try {
      export_candidate(s, c, r);
    } catch (const UserError& e) {
      return e.error().code;
    }
    return std::string("no error");
  };
  EXPECT_EQ(code_of(bare, std::nullopt), "export-no-bundle");
  EXPECT_EQ(code_of(4242, std::nullopt), "export-unknown-candidate");
  EXPECT_EQ(code_of(std::nullopt, 77), "export-unknown-run");
  RunInfo empty = info;
  int64_t run2 = s.create_run(empty);
  EXPECT_EQ(code_of(std::nullopt, run2), "export-nothing-verified");
}

// Stored strings cannot end a comment and become code; the PyTorch snippet imports
// what problem expressions use, builds for sm_90a whatever the environment says,
// checks what it is given and what it gets, and says when the shapes are not the
// benchmark's.
TEST(Export, StoredTextStaysInCommentsAndTheSnippetChecksShapes) {
  KernelBundle b = small_bundle();
  b.schedule_hash = "00ff\nint injected_line = 1;";
  ExportOptions o;
  o.title = "title\n#include \"/etc/passwd\"\r\nvoid evil() {}";
  o.file_name = "k\nernel\"x.cu";
  o.torch_op = "F.relu(x) */ int z;";
  o.size = "small";
  std::string s = export_kernel(b, o);
  std::istringstream lines(s);
  for (std::string l; std::getline(lines, l);) {
    EXPECT_NE(l.rfind("#include \"/etc/passwd\"", 0), 0u) << l;
    EXPECT_NE(l.rfind("int injected_line", 0), 0u) << l;
    EXPECT_NE(l.rfind("void evil", 0), 0u) << l;
  }
  const size_t snippet = s.find("/* PyTorch check");
  ASSERT_NE(snippet, std::string::npos);
  EXPECT_EQ(s.find("*/", snippet), s.size() - 3) << "the snippet's comment ends only at the end";
  EXPECT_NE(s.find("import torch.nn.functional as F", snippet), std::string::npos);
  EXPECT_NE(s.find("if \"9.0a\" not in os.environ.get(\"TORCH_CUDA_ARCH_LIST\"", snippet), std::string::npos);
  EXPECT_EQ(s.find("setdefault(\"TORCH_CUDA_ARCH_LIST\""), std::string::npos);
  EXPECT_NE(s.find("TORCH_CHECK(x.sizes() == torch::IntArrayRef({16, 16})", snippet), std::string::npos);
  EXPECT_NE(s.find("TORCH_CHECK(x.scalar_type() == torch::kFloat", snippet), std::string::npos);
  EXPECT_NE(s.find("assert got.shape == want.shape", snippet), std::string::npos);
  EXPECT_NE(s.find("assert got.dtype == want.dtype", snippet), std::string::npos);
  EXPECT_NE(s.find("Lowered at the small size"), std::string::npos);
  EXPECT_NE(s.find("lowered at the small size", snippet), std::string::npos);
  EXPECT_NE(s.find("open(\"k ernel\\\"x.cu\")"), std::string::npos) << "the file name is a Python string literal";
  o.size = "bench";
  EXPECT_EQ(export_kernel(b, o).find("small size"), std::string::npos);
}
