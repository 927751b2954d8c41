// The PTX precision scan: instruction-level cases, the cheating kernels of
// tests/cheats compiled with NVRTC (no GPU needed), and honest kernels.
#include "runtime/precision_scan.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "codegen/device_library.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {
namespace {

std::string ptx_body(const std::string& lines) { return ".version 8.0\n.target sm_90a\n{\n" + lines + "\n}\n"; }

TEST(PrecisionScan, FindsNarrowingConversionsAndNotWidening) {
  auto uses = reduced_precision_uses(ptx_body(
      "\tcvt.rn.bf16.f32 \t%rs1, %f1;\n\tcvt.f32.bf16 %f2, %rs1;\n\tcvt.rna.tf32.f32 %r1, %f3;\n"
      "\tcvt.rn.f16x2.f32 %r2, %f4, %f5;\n\tcvt.f32.f16 %f6, %rs2;\n\tcvt.rn.satfinite.e4m3x2.f32 %rs3, %f7, %f8;\n"
      "\tcvt.rn.f32.s32 %f9, %r3;\n\tcvt.u32.u16 %r4, %rs4;"));
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[0].precision, Precision::bf16);
  EXPECT_EQ(uses[1].precision, Precision::tf32);
  EXPECT_EQ(uses[2].precision, Precision::f16);
  EXPECT_EQ(uses[3].precision, Precision::fp8);
  EXPECT_EQ(uses[0].line, 4);
}

TEST(PrecisionScan, FindsReducedPrecisionMatrixAndArithmeticInstructions) {
  auto uses = reduced_precision_uses(
      ptx_body("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
               "{%f1,%f2,%f3,%f4};\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, 1, 1, 1, 1, 1;\n"
               "fma.rn.f16x2 %r1, %r2, %r3, %r4;\nmax.bf16 %rs1, %rs2, %rs3;\nfma.rn.f32 %f1, %f2, %f3, %f4;\n"
               "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1,%fd2}, {%fd3}, {%fd4}, {%fd1,%fd2};\n"
               "ld.global.b16 %rs1, [%rd1];"));
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[0].precision, Precision::tf32);
  EXPECT_EQ(uses[1].precision, Precision::bf16);
  EXPECT_EQ(uses[2].precision, Precision::f16);
  EXPECT_EQ(uses[3].precision, Precision::bf16);
}

TEST(PrecisionScan, FindsMantissaMasksOnFloatBitsOnly) {
  auto uses = reduced_precision_uses(
      ptx_body("mov.b32 %r1, %f1;\nand.b32 %r2, %r1, -65536;\nmov.b32 %r3, %f2;\nand.b32 %r4, %r3, -8192;\n"
               "and.b32 %r5, %r6, -65536;\nmov.b32 %r7, %f3;\nand.b32 %r8, %r7, -2147483648;\n"
               "ld.global.nc.u32 %r9, [%rd1];\nand.b32 %r10, %r9, -65536;\nmov.b32 %f4, %r10;"));
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(uses[0].precision, Precision::bf16);
  EXPECT_EQ(uses[1].precision, Precision::tf32);
  EXPECT_EQ(uses[2].precision, Precision::bf16);
  EXPECT_EQ(uses[2].line, 12);
}

// An integer mask (an index rounded down to a multiple of 256) is not a float rounded by
// hand when the register is later overwritten: by a shuffle whose destination carries a
// predicate, or in the next function, whose registers are its own.
TEST(PrecisionScan, IntegerMasksDoNotFollowRegistersThatAreWrittenAgain) {
  const std::string index_mask = "and.b32 %r27, %r26, -256;\nsub.s32 %r2, %r23, %r27;\n";
  EXPECT_TRUE(reduced_precision_uses(ptx_body(index_mask + "shfl.sync.bfly.b32 %r27|%p1, %r5, 1, 31, -1;\n"
                                                           "mov.b32 %f56, %r27;"))
                  .empty());
  EXPECT_TRUE(
      reduced_precision_uses(ptx_body(index_mask) + "\n.visible .entry k1(\n)\n{\nmov.b32 %f56, %r27;\n}\n").empty());
  // The same mask moved into a float register in the same function is still found.
  EXPECT_EQ(reduced_precision_uses(ptx_body(index_mask + "mov.b32 %f56, %r27;")).size(), 1u);
}

TEST(PrecisionScan, AdmitsWhatTheDeclarationAndTheBufferTypesAllow) {
  EXPECT_TRUE(admitted_precisions(Precision::f32, {DType::f32}).empty());
  EXPECT_EQ(admitted_precisions(Precision::tf32, {DType::f32}), (std::set<Precision>{Precision::tf32}));
  EXPECT_EQ(admitted_precisions(Precision::x3tf32, {DType::f32}), (std::set<Precision>{Precision::tf32}));
  EXPECT_EQ(admitted_precisions(Precision::bf16, {DType::f32}),
            (std::set<Precision>{Precision::bf16, Precision::tf32}));
  EXPECT_EQ(admitted_precisions(Precision::f32, {DType::f32, DType::f16}), (std::set<Precision>{Precision::f16}));
  const std::string ptx = ptx_body("cvt.rn.bf16.f32 %rs1, %f1;");
  EXPECT_TRUE(undeclared_precision(ptx, admitted_precisions(Precision::f32, {DType::f32})).has_value());
  EXPECT_FALSE(undeclared_precision(ptx, admitted_precisions(Precision::bf16, {DType::f32})).has_value());
  EXPECT_EQ(compiled_precision(ptx), Precision::bf16);
  EXPECT_EQ(compiled_precision(ptx_body("add.f32 %f1, %f2, %f3;")), Precision::f32);
}

std::string cheat_kernel(const std::string& name) {
  std::ifstream in(std::string(CUSCHED_CHEATS_DIR) + "/kernels/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string compiled_ptx(const std::string& file) {
  CompileOptions o;
  o.arch = "sm_90a";
  return compile_cuda(cheat_kernel(file), device_headers(), o, file).ptx;
}

TEST(PrecisionScan, RejectsEveryUndeclaredPrecisionCheatAndNoControl) {
  for (const auto& [file, precision] :
       std::vector<std::pair<std::string, std::string>>{{"undeclared_bf16.cu", "bf16"},
                                                        {"undeclared_bf16_bitmask.cu", "bf16"},
                                                        {"undeclared_tf32.cu", "tf32"},
                                                        {"undeclared_f16_math.cu", "f16"}}) {
    SCOPED_TRACE(file);
    std::string ptx = compiled_ptx(file);
    ASSERT_FALSE(ptx.empty());
    auto use = undeclared_precision(ptx, admitted_precisions(Precision::f32, {DType::f32}));
    ASSERT_TRUE(use.has_value());
    EXPECT_EQ(precision_name(use->precision), precision) << use->instruction;
  }
  for (const char* file : {"relu_honest.cu", "softmax_honest.cu", "layernorm_two_pass.cu",
                           "layernorm_naive_variance.cu", "softmax_no_max_subtraction.cu"}) {
    SCOPED_TRACE(file);
    std::string ptx = compiled_ptx(file);
    ASSERT_FALSE(ptx.empty());
    auto use = undeclared_precision(ptx, admitted_precisions(Precision::f32, {DType::f32}));
    EXPECT_FALSE(use.has_value()) << use->instruction;
    EXPECT_EQ(compiled_precision(ptx), Precision::f32);
  }
}

}  // namespace
}  // namespace cusched::runtime
