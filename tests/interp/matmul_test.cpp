// A 64x48x40 matmul through 256-thread blocks, two ways: one accumulator register
// per thread, and shared-memory tiles with barriers. Results are compared with the
// same f32 arithmetic done here in plain loops; the run time is the interpreter's
// budget inside property tests.
#include <cmath>
#include <ctime>
#include <functional>

#include <gtest/gtest.h>

#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

constexpr int M = 64, N = 48, K = 40, T = 16, KT = 8;

HostBuffers matmul_inputs() {
  HostBuffers b;
  b["A"].resize(M * K);
  b["B"].resize(K * N);
  for (int i = 0; i < M * K; ++i) b["A"][i] = static_cast<float>(std::sin(i * 0.13));
  for (int i = 0; i < K * N; ++i) b["B"][i] = static_cast<float>(std::cos(i * 0.29));
  return b;
}

// C = A B accumulated in f32 in k order, as one thread does it.
std::vector<double> expected_matmul(const HostBuffers& b) {
  std::vector<double> c(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc = acc + static_cast<float>(b.at("A")[i * K + k]) * static_cast<float>(b.at("B")[k * N + j]);
      c[i * N + j] = acc;
    }
  return c;
}

std::vector<BufferSpec> matmul_buffers() {
  return {buffer("A", DType::f32, M * K, BufferRole::Input), buffer("B", DType::f32, K * N, BufferRole::Input),
          buffer("C", DType::f32, M * N, BufferRole::Output)};
}

LoweredProgram register_matmul() {
  Expr row = var("by") * T + var("ty"), col = var("bx") * T + var("tx");
  Stmt per_thread = make_allocate(
      "acc", MemScope::Register, DType::f32, 1,
      make_block(
          {make_store("acc", make_int(0), f32(0.0)),
           serial("k", 0, K,
                  make_store("acc", make_int(0),
                             load("acc", make_int(0)) + load("A", row * K + var("k")) * load("B", var("k") * N + col))),
           make_store("C", row * N + col, load("acc", make_int(0)))}));
  Stmt body = bound("by", M / T, GpuAxis::BlockY,
                    bound("bx", N / T, GpuAxis::BlockX,
                          bound("ty", T, GpuAxis::ThreadY, bound("tx", T, GpuAxis::ThreadX, per_thread))));
  return program(matmul_buffers(), {kernel("matmul", {N / T, M / T, 1}, {T, T, 1}, {"A", "B", "C"}, body)});
}

LoweredProgram tiled_matmul() {
  Expr ty = var("ty"), tx = var("tx"), ko = var("ko"), kk = var("kk");
  Expr row = var("by") * T + ty, col = var("bx") * T + tx;
  // 256 threads load a 16x8 tile of A and an 8x16 tile of B: threads with tid < 128 each load one of each.
  Expr tid = make_var("tid");
  Stmt load_tiles = make_if(
      tid < T * KT, make_block({make_store("As", tid, load("A", (var("by") * T + tid / KT) * K + ko * KT + tid % KT)),
                                make_store("Bs", tid, load("B", (ko * KT + tid / T) * N + var("bx") * T + tid % T))}));
  Stmt compute_tile = serial(
      "kk", 0, KT,
      make_store("acc", make_int(0), load("acc", make_int(0)) + load("As", ty * KT + kk) * load("Bs", kk * T + tx)));
  Stmt per_thread = make_allocate(
      "acc", MemScope::Register, DType::f32, 1,
      make_block({make_store("acc", make_int(0), f32(0.0)),
                  serial("ko", 0, K / KT, make_block({load_tiles, make_barrier(), compute_tile, make_barrier()})),
                  make_store("C", row * N + col, load("acc", make_int(0)))}));
  Stmt body =
      bound("by", M / T, GpuAxis::BlockY,
            bound("bx", N / T, GpuAxis::BlockX,
                  make_allocate(
                      "As", MemScope::Shared, DType::f32, T * KT,
                      make_allocate("Bs", MemScope::Shared, DType::f32, KT * T,
                                    bound("ty", T, GpuAxis::ThreadY, bound("tx", T, GpuAxis::ThreadX, per_thread))))));
  return program(matmul_buffers(), {kernel("matmul_tiled", {N / T, M / T, 1}, {T, T, 1}, {"A", "B", "C"}, body)});
}

// Processor time of one interpretation, in ms: unlike wall time it does not grow
// when other processes share the machine.
double run_ms(const LoweredProgram& p, HostBuffers& b, InterpStats* stats) {
  std::clock_t start = std::clock();
  *stats = interpret(p, b);
  return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

TEST(InterpreterMatmul, RegisterAccumulatorIsExactAndFast) {
  HostBuffers b = matmul_inputs();
  InterpStats stats;
  double ms = run_ms(register_matmul(), b, &stats);
  EXPECT_EQ(b["C"], expected_matmul(b));
  EXPECT_EQ(stats.blocks, 12);
  EXPECT_EQ(stats.threads, 12 * 256);
  std::printf("register matmul 64x48x40: %.1f ms of processor time\n", ms);
#ifdef NDEBUG
  EXPECT_LT(ms, 300.0);  // about 10 ms of processor time in Release; the bound only catches gross regressions
#endif
}

TEST(InterpreterMatmul, SharedTilesWithBarriersAreExactAndFast) {
  HostBuffers b = matmul_inputs();
  InterpStats stats;
  double ms = run_ms(tiled_matmul(), b, &stats);
  EXPECT_EQ(b["C"], expected_matmul(b));
  EXPECT_EQ(stats.barriers, 12 * 2 * (K / KT));
  std::printf("tiled matmul 64x48x40: %.1f ms of processor time\n", ms);
#ifdef NDEBUG
  EXPECT_LT(ms, 300.0);
#endif
}

TEST(InterpreterMatmul, TileLoadRacingTheComputeIsCaught) {
  // Without the second barrier, the next tile load overwrites As while slower threads still read it.
  LoweredProgram p = tiled_matmul();
  std::function<Stmt(const Stmt&)> drop_last_barrier = [&](const Stmt& s) -> Stmt {
    auto copy = std::make_shared<StmtNode>(*s);
    if (s->kind == StmtKind::Block && s->body.size() == 4 && s->body[3]->kind == StmtKind::Barrier) {
      copy->body.pop_back();
      return copy;
    }
    for (auto& c : copy->body) c = drop_last_barrier(c);
    return copy;
  };
  p.kernels[0].body = drop_last_barrier(p.kernels[0].body);
  HostBuffers b = matmul_inputs();
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "shared-memory-race");
}

}  // namespace
}  // namespace cusched
