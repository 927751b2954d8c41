#pragma once
// The emitted text of one scalar expression (test::scalar_program) and its NVRTC
// compile, for the expression and math-function emitter tests.
#include <string>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/device_library.h"
#include "hand_built_ir.h"
#include "nvrtc_check.h"

namespace cusched::test {

inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The text stored into Out[t] by the scalar program.
inline std::string stored(const Expr& value, DType out = DType::f32, bool reference = false) {
  std::string src = emit_cuda(scalar_program(value, out), {.reference_f64 = reference});
  auto at = src.find("Out[t] = ");
  EXPECT_NE(at, std::string::npos) << src;
  if (at == std::string::npos) return "";
  at += 9;
  return src.substr(at, src.find(";\n", at) - at);
}

inline void expect_compiles(const Expr& value, DType out = DType::f32, bool reference = false) {
  std::string src = emit_cuda(scalar_program(value, out), {.reference_f64 = reference});
  NvrtcOutcome r = compile_with_nvrtc(src, device_headers());
  EXPECT_TRUE(r.compiled) << r.log << "\n" << src;
  EXPECT_GT(r.cubin_bytes, 0u);
}

// A[t], an f32 load.
inline Expr a() { return ld("A", DType::f32, v("t")); }

}  // namespace cusched::test
