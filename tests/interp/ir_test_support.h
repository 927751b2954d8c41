#pragma once
// Small builders for hand-written loop IR in the interpreter tests.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "codegen/interpreter.h"
#include "codegen/ir.h"
#include "codegen/lower.h"
#include "dsl/error.h"
#include "problems/problem.h"

namespace cusched::test {

inline Expr var(const std::string& name) { return make_var(name); }
inline Expr f32(double v) { return make_float(v, DType::f32); }
inline Expr f64(double v) { return make_float(v, DType::f64); }
inline Expr load(const std::string& buffer, Expr index, DType t = DType::f32) {
  return make_load(buffer, t, {std::move(index)});
}

inline Stmt serial(const std::string& v, int64_t lo, int64_t extent, Stmt body) {
  return make_for(v, make_int(lo), make_int(extent), LoopKind::Serial, GpuAxis::None, std::move(body));
}
inline Stmt bound(const std::string& v, int64_t extent, GpuAxis axis, Stmt body) {
  return make_for(v, make_int(0), make_int(extent), LoopKind::Serial, axis, std::move(body));
}

inline BufferSpec buffer(const std::string& name, DType t, int64_t elements, BufferRole role) {
  BufferSpec b;
  b.name = name;
  b.dtype = t;
  b.shape = {elements};
  b.role = role;
  return b;
}

inline Kernel kernel(const std::string& name, std::array<int64_t, 3> grid, std::array<int64_t, 3> block,
                     std::vector<std::string> params, Stmt body) {
  Kernel k;
  k.name = name;
  k.grid = grid;
  k.block = block;
  k.params = std::move(params);
  k.body = std::move(body);
  return k;
}

inline LoweredProgram program(std::vector<BufferSpec> buffers, std::vector<Kernel> kernels) {
  LoweredProgram p;
  p.problem = "test";
  p.buffers = std::move(buffers);
  p.kernels = std::move(kernels);
  return p;
}

// The code of the cusched::UserError that `f` throws, or "" when it throws none.
inline std::string error_code(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const UserError& e) {
    if (message) *message = e.error().message;
    return e.error().code;
  }
  return "";
}

// The matmul problem's C(i, j) = sum(k, A(i, k) * B(k, j)) of (M, K) x (K, N) at the
// given sizes, for schedules lowered by these tests.
struct Sizes {
  int64_t m, n, k;
};

inline ScheduleContext matmul_context(Sizes z) {
  ScheduleContext c = find_problem("matmul").context("small");
  c.sizes = {{"M", z.m}, {"N", z.n}, {"K", z.k}};
  return c;
}

// The matmul lowered with `steps` at sizes `z`.
inline LoweredProgram lowered_matmul(Sizes z, const nlohmann::json& steps) {
  return lower(Schedule::from_json(matmul_context(z), steps), "matmul");
}

// A and B of the matmul at sizes `z`: f32 values of sines and cosines.
inline HostBuffers matmul_inputs(Sizes z) {
  HostBuffers b;
  b["A"].resize(z.m * z.k);
  b["B"].resize(z.k * z.n);
  for (int64_t i = 0; i < z.m * z.k; ++i) b["A"][i] = static_cast<float>(std::sin(static_cast<double>(i) * 0.37));
  for (int64_t i = 0; i < z.k * z.n; ++i) b["B"][i] = static_cast<float>(std::cos(static_cast<double>(i) * 0.23));
  return b;
}

// C = A B with f32 products and f32 sums in k order, the order of a register tile.
inline std::vector<double> f32_matmul(Sizes z, const HostBuffers& b) {
  std::vector<double> c(z.m * z.n);
  for (int64_t i = 0; i < z.m; ++i)
    for (int64_t j = 0; j < z.n; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < z.k; ++k)
        acc = acc + static_cast<float>(b.at("A")[i * z.k + k]) * static_cast<float>(b.at("B")[k * z.n + j]);
      c[i * z.n + j] = acc;
    }
  return c;
}

}  // namespace cusched::test
