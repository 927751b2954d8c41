// The scan for state a compiled module keeps between launches: PTX declarations and
// calls, and kernels compiled with NVRTC (no GPU needed) that keep such state in each
// way the language allows, against honest kernels that only look alike.
#include "runtime/module_state_scan.h"

#include <gtest/gtest.h>

#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

std::string ptx_of(const std::string& source) {
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_cuda(source, {}, o, "state_probe.cu").ptx;
}

// The use `ptx` holds: its kind, name and line.
void expect_use(const std::string& ptx, const std::string& kind, const std::string& name, int line) {
  auto use = persistent_state(ptx);
  ASSERT_TRUE(use.has_value()) << ptx;
  EXPECT_EQ(use->kind, kind);
  EXPECT_EQ(use->name, name);
  EXPECT_EQ(use->line, line);
  EXPECT_NE(persistent_state_message(*use).find(name), std::string::npos);
}

TEST(ModuleStateScan, ReadsModuleScopeDeclarationsAndHeapCalls) {
  expect_use(
      ".version 8.0\n.target sm_90a\n.address_size 64\n\n.global .align 4 .b8 saved[1024];\n"
      ".visible .entry k(\n.param .u64 k_param_0\n)\n{\nld.global.f32 %f1, [%rd1];\nst.global.f32 [saved+4], %f1;\n}\n",
      "global variable", "saved", 5);
  expect_use(
      ".visible .global .align 4 .u32 counter = 3;\n.visible .entry k()\n{\n@%p1 atom.global.add.u32 %r1, "
      "[counter], 1;\n}\n",
      "global variable", "counter", 1);
  expect_use(
      ".version 8.0\n.extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0\n)\n;\n"
      ".visible .entry k()\n{\n\t{\n\tcall.uni (retval0), \n\tmalloc, \n\t(\n\tparam0\n\t);\n\t}\n}\n",
      "device heap", "malloc", 2);
}

TEST(ModuleStateScan, LeavesInstructionsConstantsTexturesAndStringLiteralsAlone) {
  EXPECT_FALSE(persistent_state(".const .align 4 .b8 table[16] = {0, 0, 128, 63};\n"
                                ".global .texref tex;\n.global .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};\n"
                                ".visible .entry k(\n.param .u64 .ptr .global .align 4 k_param_0\n)\n{\n"
                                "ld.global.nc.f32 %f1, [%rd1];\nst.global.f32 [%rd2], %f1;\ncvta.to.global.u64 %rd3, "
                                "%rd4;\natom.global.add.f32 %f2, [%rd2], %f1;\n}\n")
                   .has_value());
}

// A variable counts as state when the module may write it: through an address derived from
// it by arithmetic, or once that address escapes into memory or a call. A table the module
// only reads, through any arithmetic on its address, is no state, and a value loaded from
// it is data, not its address.
TEST(ModuleStateScan, AVariableIsStateWhenTheModuleMayWriteIt) {
  const std::string table = ".global .align 4 .b8 table[24] = {1, 2, 3};\n.visible .entry k()\n{\n";
  const std::string walk =
      "mov.u64 %rd1, table;\n$L__BB0_1:\nld.global.nc.u32 %r1, [%rd1];\n"
      "mad.wide.u32 %rd2, %r1, %r2, %rd3;\nst.local.u32 [%rd4], %rd2;\nadd.s64 %rd1, %rd1, 4;\n"
      "@%p1 bra $L__BB0_1;\n";
  EXPECT_FALSE(persistent_state(table + walk + "}\n").has_value());
  // Written through the walked pointer, ...
  expect_use(table + walk + "st.global.u32 [%rd1+8], %r3;\n}\n", "global variable", "table", 1);
  // ... its address stored, so that a later load can bring it back, ...
  expect_use(table + walk + "cvta.global.u64 %rd5, %rd1;\nst.local.u64 [%rd6], %rd5;\n}\n", "global variable", "table",
             1);
  // ... written by a store in inline asm, whose braces share the line, ...
  expect_use(table + "{ .reg .b32 t; mov.b32 t, 0; st.global.u32 [table+4], t; }\n}\n", "global variable", "table", 1);
  // ... or copied into by the bulk engine.
  expect_use(table + "mov.u64 %rd1, table;\ncp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r5], 16;\n}\n",
             "global variable", "table", 1);
  // A copy out of it writes shared memory, not the table.
  EXPECT_FALSE(
      persistent_state(table + "mov.u64 %rd1, table;\ncp.async.ca.shared.global [%r5], [%rd1], 16;\n}\n").has_value());
}

TEST(ModuleStateScan, FindsEveryWayCompiledKernelsKeepState) {
  const char* kernels[] = {
      // A __device__ counter.
      "__device__ int calls;\n"
      "extern \"C\" __global__ void k(const float* x, float* y) { if (calls++ == 0) y[threadIdx.x] = x[threadIdx.x]; }",
      // A function-scope static in a kernel.
      "extern \"C\" __global__ void k(const float* x, float* y) {\n"
      "  static __device__ float saved[256]; if (x[0] == saved[0]) y[threadIdx.x] = saved[threadIdx.x];\n"
      "  else { y[threadIdx.x] = x[threadIdx.x]; saved[threadIdx.x] = x[threadIdx.x]; } }",
      // A function-scope static in a __device__ function the kernel calls.
      "__device__ float* store() { static __device__ float s[256]; return s; }\n"
      "extern \"C\" __global__ void k(const float* x, float* y) { store()[threadIdx.x] += x[threadIdx.x];\n"
      "  y[threadIdx.x] = store()[threadIdx.x]; }",
      // A __device__ flag with an initializer, cleared through a pointer.
      "__device__ int first = 1;\n"
      "extern \"C\" __global__ void k(const float* x, float* y) { int* p = &first; if (*p) y[threadIdx.x] = "
      "x[threadIdx.x];\n"
      "  __syncthreads(); if (threadIdx.x == 0) p[0] = 0; }",
      // A __device__ pointer to itself kept in another variable, written through the copy.
      "__device__ int hits[32];\n__device__ int* where;\n"
      "extern \"C\" __global__ void k(const float* x, float* y) { where = hits; atomicAdd(where + threadIdx.x % 32, "
      "1);\n"
      "  y[threadIdx.x] = x[threadIdx.x] * hits[0]; }",
      // A buffer from the device heap.
      "extern \"C\" __global__ void k(const float* x, float* y) {\n"
      "  float* p = (float*)malloc(1024); p[threadIdx.x] = x[threadIdx.x]; y[threadIdx.x] = p[threadIdx.x]; }",
  };
  for (const char* src : kernels) {
    SCOPED_TRACE(src);
    EXPECT_TRUE(persistent_state(ptx_of(src)).has_value());
  }
}

TEST(ModuleStateScan, PassesHonestKernelsWithConstantTablesSharedMemoryAndAtomics) {
  const char* kernels[] = {
      "__constant__ float scale[4] = {1.f, 2.f, 3.f, 4.f};\n"
      "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y) {\n"
      "  __shared__ float t[256]; t[threadIdx.x] = x[threadIdx.x] * scale[threadIdx.x % 4]; __syncthreads();\n"
      "  atomicAdd(&y[0], t[255 - threadIdx.x]); }",
      "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y) {\n"
      "  const float c[3] = {0.5f, 0.25f, 0.125f}; y[threadIdx.x] = x[threadIdx.x] * c[threadIdx.x % 3]; }",
      // The precise sinf reads the math library's table of 2/pi (a module-scope global).
      "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y) {\n"
      "  y[threadIdx.x] = sinf(x[threadIdx.x]) + cosf(x[threadIdx.x]); }",
      // A __device__ table with an initializer that the kernel only reads.
      "__device__ float weights[4] = {1.f, 2.f, 3.f, 4.f};\n"
      "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y) {\n"
      "  y[threadIdx.x] = x[threadIdx.x] * weights[threadIdx.x % 4]; }",
  };
  for (const char* src : kernels) {
    SCOPED_TRACE(src);
    auto state = persistent_state(ptx_of(src));
    EXPECT_FALSE(state.has_value()) << (state ? state->instruction : "");
  }
}

}  // namespace
}  // namespace cusched::runtime
