// The interpreter on hand-built loop IR: results, GPU rounding, collectives, and the
// errors it must report instead of a wrong answer.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/fast_math.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

std::vector<double> float_values(int n, double scale, double offset) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<double>(static_cast<float>(std::sin(i * 0.37) * scale + offset));
  return v;
}

// C[i] = A[i] * 2 + B[i] over 1000 elements, 4 blocks of 256 threads, tail guarded.
LoweredProgram elementwise_program() {
  Expr i = var("io") * 256 + var("ii");
  Stmt body = make_if(i < 1000, make_store("C", i, load("A", i) * f32(2.0) + load("B", i)));
  return program({buffer("A", DType::f32, 1000, BufferRole::Input), buffer("B", DType::f32, 1000, BufferRole::Input),
                  buffer("C", DType::f32, 1000, BufferRole::Output)},
                 {kernel("axpb", {4, 1, 1}, {256, 1, 1}, {"A", "B", "C"},
                         bound("io", 4, GpuAxis::BlockX, bound("ii", 256, GpuAxis::ThreadX, body)))});
}

TEST(Interpreter, ElementwiseKernelMatchesFloatArithmetic) {
  HostBuffers buf{{"A", float_values(1000, 3, 0)}, {"B", float_values(1000, 1, 0.5)}};
  InterpStats stats = interpret(elementwise_program(), buf);
  ASSERT_EQ(buf["C"].size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    float expected = static_cast<float>(buf["A"][i]) * 2.0f + static_cast<float>(buf["B"][i]);
    ASSERT_EQ(buf["C"][i], static_cast<double>(expected)) << "element " << i;
  }
  EXPECT_EQ(stats.blocks, 4);
  EXPECT_EQ(stats.threads, 1024);
  EXPECT_EQ(stats.barriers, 0);
}

TEST(Interpreter, MissingOutputsArePoisonedAndInputsRequired) {
  LoweredProgram p = elementwise_program();
  // A guard that skips the last element leaves it NaN.
  p.kernels[0].body =
      bound("io", 4, GpuAxis::BlockX,
            bound("ii", 256, GpuAxis::ThreadX,
                  make_if(var("io") * 256 + var("ii") < 999, make_store("C", var("io") * 256 + var("ii"), f32(1.0)))));
  HostBuffers buf{{"A", float_values(1000, 1, 0)}, {"B", float_values(1000, 1, 0)}};
  interpret(p, buf);
  EXPECT_EQ(buf["C"][998], 1.0);
  EXPECT_TRUE(std::isnan(buf["C"][999]));
  HostBuffers no_b{{"A", float_values(1000, 1, 0)}};
  EXPECT_EQ(error_code([&] { interpret(p, no_b); }), "missing-buffer");
  HostBuffers short_a{{"A", float_values(999, 1, 0)}, {"B", float_values(1000, 1, 0)}};
  EXPECT_EQ(error_code([&] { interpret(p, short_a); }), "buffer-size-mismatch");
}

TEST(Interpreter, F32ArithmeticRoundsEveryResultAndF64DoesNot) {
  Stmt body = make_block({
      make_store("Y", make_int(0), load("X", make_int(0)) + f32(1.0)),
      make_store("Z", make_int(0), cast(DType::f64, load("X", make_int(0))) + f64(1.0)),
      make_store("Y", make_int(1), cast(DType::f64, load("X", make_int(0))) + f64(1.0)),  // rounded by the f32 store
      make_store("Z", make_int(1), (load("X", make_int(0)) + f32(1.0)) - load("X", make_int(0))),
  });
  LoweredProgram p =
      program({buffer("X", DType::f32, 1, BufferRole::Input), buffer("Y", DType::f32, 2, BufferRole::Output),
               buffer("Z", DType::f64, 2, BufferRole::Output)},
              {kernel("k", {1, 1, 1}, {1, 1, 1}, {"X", "Y", "Z"}, body)});
  HostBuffers buf{{"X", {1e8}}};
  interpret(p, buf);
  EXPECT_EQ(buf["Y"][0], 1e8);
  EXPECT_EQ(buf["Z"][0], 1e8 + 1);
  EXPECT_EQ(buf["Y"][1], 1e8);
  EXPECT_EQ(buf["Z"][1], 0.0);  // (1e8f + 1) - 1e8f is 0 in f32
}

// The GPU computes fast-math calls with approximate intrinsics; the interpreter gives
// the exact f32 operation, so a stage means the same with and without math "fast".
TEST(Interpreter, FastMathCallsEvaluateTheExactOperation) {
  auto run = [](bool fast) {
    Expr x = load("X", var("ii")), d = load("D", var("ii"));
    Expr value = exp(x) / d + log(d);
    if (fast) value = with_fast_math(value);
    Stmt body = bound("ii", 64, GpuAxis::ThreadX, make_store("Y", var("ii"), value));
    LoweredProgram p =
        program({buffer("X", DType::f32, 64, BufferRole::Input), buffer("D", DType::f32, 64, BufferRole::Input),
                 buffer("Y", DType::f32, 64, BufferRole::Output)},
                {kernel("k", {1, 1, 1}, {64, 1, 1}, {"X", "D", "Y"}, body)});
    HostBuffers buf{{"X", float_values(64, 3, 0)}, {"D", float_values(64, 1, 2)}};
    interpret(p, buf);
    return buf["Y"];
  };
  const std::vector<double> exact = run(false), fast = run(true);
  ASSERT_EQ(fast.size(), 64u);
  for (int i = 0; i < 64; ++i) {
    ASSERT_FALSE(std::isnan(fast[i])) << i;
    EXPECT_EQ(fast[i], exact[i]) << "element " << i;
  }
}

TEST(Interpreter, StoresConvertToTheBufferType) {
  Stmt body = make_block({
      make_store("I", make_int(0), f64(2.7)),
      make_store("I", make_int(1), f64(-2.7)),
      make_store("H", make_int(0), f64(1.0 + std::ldexp(1.0, -11))),  // f16 tie -> even (1)
      make_store("H", make_int(1), f64(1.0 + 3 * std::ldexp(1.0, -11))),
      make_store("BF", make_int(0), f64(1.0 + std::ldexp(1.0, -8))),  // bf16 tie -> even (1)
      make_store("BF", make_int(1), f64(1.0 + 3 * std::ldexp(1.0, -8))),
      make_store("T", make_int(0), make_call("round_tf32", {f32(1.0 + std::ldexp(1.0, -11))}, DType::f32)),
      make_store("T", make_int(1), make_call("round_tf32", {f32(1.0 + std::ldexp(1.0, -12))}, DType::f32)),
      make_store("T", make_int(2), make_call("round_bf16", {f32(1.0 + 3 * std::ldexp(1.0, -8))}, DType::f32)),
      make_store("T", make_int(3), make_call("round_f16", {f32(1.0 + std::ldexp(1.0, -11))}, DType::f32)),
      make_store("I", make_int(2), cast(DType::i32, f32(-3.9))),
      make_store("I", make_int(3), cast(DType::boolean, f32(0.25))),
  });
  LoweredProgram p =
      program({buffer("I", DType::i32, 4, BufferRole::Output), buffer("H", DType::f16, 2, BufferRole::Output),
               buffer("BF", DType::bf16, 2, BufferRole::Output), buffer("T", DType::f32, 4, BufferRole::Output)},
              {kernel("k", {1, 1, 1}, {1, 1, 1}, {"I", "H", "BF", "T"}, body)});
  HostBuffers buf;
  interpret(p, buf);
  EXPECT_EQ(buf["I"], (std::vector<double>{2, -2, -3, 1}));
  EXPECT_EQ(buf["H"], (std::vector<double>{1.0, 1.0 + std::ldexp(1.0, -9)}));
  EXPECT_EQ(buf["BF"], (std::vector<double>{1.0, 1.0 + std::ldexp(1.0, -6)}));
  EXPECT_EQ(buf["T"], (std::vector<double>{1.0 + std::ldexp(1.0, -10), 1.0, 1.0 + std::ldexp(1.0, -6), 1.0}));
}

// Row sums of X (4 x 256) with 128 threads: per-thread partial sums in a register, a
// shared array, and a tree of barriers.
LoweredProgram block_reduction_program(bool with_barriers) {
  Expr t = var("t"), r = var("r");
  std::vector<Stmt> steps;
  steps.push_back(make_allocate(
      "acc", MemScope::Register, DType::f32, 1,
      make_block(
          {make_store("acc", make_int(0), f32(0.0)),
           serial("k", 0, 2,
                  make_store("acc", make_int(0), load("acc", make_int(0)) + load("X", r * 256 + var("k") * 128 + t))),
           make_store("S", t, load("acc", make_int(0)))})));
  if (with_barriers) steps.push_back(make_barrier());
  for (int stride = 64; stride >= 1; stride /= 2) {
    steps.push_back(make_if(t < stride, make_store("S", t, load("S", t) + load("S", t + stride))));
    if (with_barriers) steps.push_back(make_barrier());
  }
  steps.push_back(make_if(t == 0, make_store("Y", r, load("S", make_int(0)))));
  Stmt body = bound(
      "r", 4, GpuAxis::BlockX,
      make_allocate("S", MemScope::Shared, DType::f32, 128, bound("t", 128, GpuAxis::ThreadX, make_block(steps))));
  return program({buffer("X", DType::f32, 4 * 256, BufferRole::Input), buffer("Y", DType::f32, 4, BufferRole::Output)},
                 {kernel("row_sum", {4, 1, 1}, {128, 1, 1}, {"X", "Y"}, body)});
}

TEST(Interpreter, BlockReductionWithSharedMemoryAndBarriers) {
  HostBuffers buf{{"X", float_values(1024, 2, 0.25)}};
  InterpStats stats = interpret(block_reduction_program(true), buf);
  const auto& x = buf["X"];
  for (int r = 0; r < 4; ++r) {
    float s[128];
    for (int t = 0; t < 128; ++t)
      s[t] = (0.0f + static_cast<float>(x[r * 256 + t])) + static_cast<float>(x[r * 256 + 128 + t]);
    for (int stride = 64; stride >= 1; stride /= 2)
      for (int t = 0; t < stride; ++t) s[t] = s[t] + s[t + stride];
    EXPECT_EQ(buf["Y"][r], static_cast<double>(s[0])) << "row " << r;
    double exact = 0;
    for (int j = 0; j < 256; ++j) exact += x[r * 256 + j];
    EXPECT_NEAR(buf["Y"][r], exact, 1e-4 * (1 + std::fabs(exact)));
  }
  EXPECT_EQ(stats.barriers, 4 * 8);
}

TEST(Interpreter, MissingBarriersInATreeReductionAreReported) {
  // Thread 0 runs ahead to the first tree step and reads S[64] before thread 64 wrote it.
  HostBuffers buf{{"X", float_values(1024, 2, 0.25)}};
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(block_reduction_program(false), buf); }, &message), "uninitialized-read");
  EXPECT_NE(message.find("'S'"), std::string::npos) << message;
  EXPECT_NE(message.find("row_sum"), std::string::npos) << message;
}

// Y[t] = S[neighbour] after every thread stored S[t] = X[t], with or without a barrier.
LoweredProgram neighbour_program(Expr neighbour, bool barrier) {
  std::vector<Stmt> steps{make_store("S", var("t"), load("X", var("t")))};
  if (barrier) steps.push_back(make_barrier());
  steps.push_back(make_store("Y", var("t"), load("S", neighbour)));
  Stmt body = make_allocate("S", MemScope::Shared, DType::f32, 64, bound("t", 64, GpuAxis::ThreadX, make_block(steps)));
  return program({buffer("X", DType::f32, 64, BufferRole::Input), buffer("Y", DType::f32, 64, BufferRole::Output)},
                 {kernel("shift", {1, 1, 1}, {64, 1, 1}, {"X", "Y"}, body)});
}

TEST(Interpreter, MissingBarrierIsReportedAsAnUninitializedOrRacyRead) {
  HostBuffers buf{{"X", float_values(64, 1, 0)}};
  // Thread 0 reads S[1] before thread 1 has written it.
  EXPECT_EQ(error_code([&] { interpret(neighbour_program((var("t") + 1) % 64, false), buf); }), "uninitialized-read");
  // Thread 1 reads S[0], written by thread 0 with no barrier in between.
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(neighbour_program(max(var("t") - 1, 0), false), buf); }, &message),
            "shared-memory-race");
  EXPECT_NE(message.find("thread (0, 0, 0)"), std::string::npos) << message;
  EXPECT_NE(message.find("thread (1, 0, 0)"), std::string::npos) << message;
  HostBuffers ok{{"X", float_values(64, 1, 0)}};
  InterpStats stats = interpret(neighbour_program((var("t") + 1) % 64, true), ok);
  for (int t = 0; t < 64; ++t) EXPECT_EQ(ok["Y"][t], ok["X"][(t + 1) % 64]);
  EXPECT_EQ(stats.barriers, 1);
  // Without race detection the racy version runs (and happens to read what thread t-1 wrote).
  HostBuffers quiet{{"X", float_values(64, 1, 0)}};
  InterpOptions no_races;
  no_races.detect_races = false;
  EXPECT_EQ(error_code([&] { interpret(neighbour_program(max(var("t") - 1, 0), false), quiet, no_races); }), "");
  for (int t = 0; t < 64; ++t) EXPECT_EQ(quiet["Y"][t], quiet["X"][std::max(t - 1, 0)]);
}

TEST(Interpreter, RegisterArraysArePerThreadAndStartUninitialized) {
  // Every thread uses the same register element: no race, each sees its own value.
  Stmt own = bound("t", 32, GpuAxis::ThreadX,
                   make_allocate("r", MemScope::Register, DType::f32, 1,
                                 make_block({make_store("r", make_int(0), load("X", var("t"))),
                                             make_store("Y", var("t"), load("r", make_int(0)) * f32(3.0))})));
  LoweredProgram p =
      program({buffer("X", DType::f32, 32, BufferRole::Input), buffer("Y", DType::f32, 32, BufferRole::Output)},
              {kernel("k", {1, 1, 1}, {32, 1, 1}, {"X", "Y"}, own)});
  HostBuffers buf{{"X", float_values(32, 1, 0)}};
  interpret(p, buf);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(buf["Y"][t], static_cast<double>(static_cast<float>(buf["X"][t]) * 3.0f));
  // An accumulator read before it is initialized.
  p.kernels[0].body = bound("t", 32, GpuAxis::ThreadX,
                            make_allocate("r", MemScope::Register, DType::f32, 1,
                                          make_block({make_store("r", make_int(0), load("r", make_int(0)) + f32(1.0)),
                                                      make_store("Y", var("t"), load("r", make_int(0)))})));
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(p, buf); }, &message), "uninitialized-read");
  EXPECT_NE(message.find("'r'"), std::string::npos) << message;
}

// A warp all-reduce: block (32, 2), every lane of each row gets the combined value.
LoweredProgram warp_program(ReduceOp op, int64_t width, DType value_type = DType::f32) {
  Expr tx = var("tx"), ty = var("ty");
  bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  std::vector<Stmt> steps{make_store("v", make_int(0), load("X", ty * 32 + tx, value_type))};
  if (arg) steps.push_back(make_store("ix", make_int(0), tx));
  steps.push_back(make_allreduce("v", arg ? "ix" : "", make_int(0), op, GpuAxis::ThreadX, width, "warp"));
  steps.push_back(make_store("Y", ty * 32 + tx, arg ? load("ix", make_int(0), DType::i32) : load("v", make_int(0))));
  Stmt inner = make_allocate("v", MemScope::Register, DType::f32, 1, make_block(steps));
  if (arg) inner = make_allocate("ix", MemScope::Register, DType::i32, 1, inner);
  Stmt body = bound("ty", 2, GpuAxis::ThreadY, bound("tx", 32, GpuAxis::ThreadX, inner));
  return program({buffer("X", DType::f32, 64, BufferRole::Input),
                  buffer("Y", arg ? DType::i32 : DType::f32, 64, BufferRole::Output)},
                 {kernel("warp", {1, 1, 1}, {32, 2, 1}, {"X", "Y"}, body)});
}

TEST(Interpreter, WarpAllReduceSumReachesEveryLane) {
  std::vector<double> x(64);
  for (int i = 0; i < 64; ++i) x[i] = (i * 7) % 13 - 6;  // small integers: every order sums exactly
  for (int64_t width : {32, 16, 8}) {
    HostBuffers buf{{"X", x}};
    InterpStats stats = interpret(warp_program(ReduceOp::Sum, width), buf);
    for (int i = 0; i < 64; ++i) {
      int first = i / width * width;
      double expected = 0;
      for (int j = first; j < first + width; ++j) expected += x[j];
      ASSERT_EQ(buf["Y"][i], expected) << "width " << width << " lane " << i;
    }
    EXPECT_EQ(stats.allreduces, 1);
  }
}

TEST(Interpreter, WarpAllReduceMaxAndMin) {
  std::vector<double> x = float_values(64, 5, 0);
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    HostBuffers buf{{"X", x}};
    interpret(warp_program(op, 32), buf);
    for (int row = 0; row < 2; ++row) {
      double expected = x[row * 32];
      for (int j = 1; j < 32; ++j)
        expected = op == ReduceOp::Max ? std::max(expected, x[row * 32 + j]) : std::min(expected, x[row * 32 + j]);
      for (int j = 0; j < 32; ++j) ASSERT_EQ(buf["Y"][row * 32 + j], expected);
    }
  }
}

TEST(Interpreter, WarpArgMaxAndArgMinBreakTiesTowardTheSmallerIndex) {
  std::vector<double> x(64, 1.0);
  x[20] = 7;
  x[5] = 7;
  x[31] = 7;  // row 0: the max 7 at lanes 5, 20, 31
  x[3] = -2;
  x[17] = -2;  // row 0: the min -2 at lanes 3, 17
  x[32 + 30] = 9;
  x[32 + 12] = 9;  // row 1: the max at lanes 12 and 30
  x[32 + 0] = -5;
  x[32 + 31] = -5;  // row 1: the min at lanes 0 and 31
  for (ReduceOp op : {ReduceOp::ArgMax, ReduceOp::ArgMin}) {
    HostBuffers buf{{"X", x}};
    interpret(warp_program(op, 32), buf);
    for (int row = 0; row < 2; ++row) {
      int best = 0;
      for (int j = 1; j < 32; ++j) {
        double v = x[row * 32 + j], b = x[row * 32 + best];
        if (op == ReduceOp::ArgMax ? v > b : v < b) best = j;
      }
      for (int j = 0; j < 32; ++j) ASSERT_EQ(buf["Y"][row * 32 + j], best) << "row " << row;
    }
  }
  HostBuffers buf{{"X", x}};
  interpret(warp_program(ReduceOp::ArgMax, 32), buf);
  EXPECT_EQ(buf["Y"][0], 5);
  EXPECT_EQ(buf["Y"][32], 12);
}

TEST(Interpreter, WarpAllReduceMustStayInsideAWarp) {
  // Reducing over threadIdx.y pairs threads 32 apart: different warps.
  LoweredProgram p = warp_program(ReduceOp::Sum, 32);
  Stmt inner =
      make_allocate("v", MemScope::Register, DType::f32, 1,
                    make_block({make_store("v", make_int(0), load("X", var("ty") * 32 + var("tx"))),
                                make_allreduce("v", "", make_int(0), ReduceOp::Sum, GpuAxis::ThreadY, 2, "warp"),
                                make_store("Y", var("ty") * 32 + var("tx"), load("v", make_int(0)))}));
  p.kernels[0].body = bound("ty", 2, GpuAxis::ThreadY, bound("tx", 32, GpuAxis::ThreadX, inner));
  HostBuffers buf{{"X", float_values(64, 1, 0)}};
  EXPECT_EQ(error_code([&] { interpret(p, buf); }), "warp-allreduce-spans-warps");
  // The block kind may span warps: column sums over y.
  inner = make_allocate("v", MemScope::Register, DType::f32, 1,
                        make_block({make_store("v", make_int(0), load("X", var("ty") * 32 + var("tx"))),
                                    make_allreduce("v", "", make_int(0), ReduceOp::Sum, GpuAxis::ThreadY, 2, "block"),
                                    make_store("Y", var("ty") * 32 + var("tx"), load("v", make_int(0)))}));
  p.kernels[0].body = bound("ty", 2, GpuAxis::ThreadY, bound("tx", 32, GpuAxis::ThreadX, inner));
  interpret(p, buf);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(buf["Y"][i],
              static_cast<double>(static_cast<float>(buf["X"][i % 32]) + static_cast<float>(buf["X"][32 + i % 32])));
}

TEST(Interpreter, BarrierUnderThreadDependentControlIsDivergent) {
  auto run = [](Stmt inside_thread_loop, int64_t loop_extent) {
    Stmt body = make_allocate("S", MemScope::Shared, DType::f32, 64,
                              bound("t", loop_extent, GpuAxis::ThreadX,
                                    make_block({make_store("S", var("t"), f32(1.0)), inside_thread_loop,
                                                make_store("Y", var("t"), load("S", var("t")))})));
    LoweredProgram p =
        program({buffer("Y", DType::f32, 64, BufferRole::Output)}, {kernel("k", {1, 1, 1}, {64, 1, 1}, {"Y"}, body)});
    HostBuffers buf;
    std::string message;
    std::string code = error_code([&] { interpret(p, buf); }, &message);
    return code;
  };
  EXPECT_EQ(run(make_if(var("t") < 32, make_barrier()), 64), "divergent-barrier");
  EXPECT_EQ(run(make_barrier(), 32), "divergent-barrier");  // thread loop narrower than the block
  EXPECT_EQ(run(make_for("k", make_int(0), var("t") % 2 + 1, LoopKind::Serial, GpuAxis::None, make_barrier()), 64),
            "divergent-barrier");
  // Uniform control around a barrier is fine.
  EXPECT_EQ(run(make_if(make_var("blockIdx.x") == 0, make_barrier()), 64), "");
  EXPECT_EQ(run(serial("k", 0, 3, make_barrier()), 64), "");
}

TEST(Interpreter, OutOfBoundsAccessNamesBufferIndexAndKernel) {
  Expr i = var("io") * 256 + var("ii");
  LoweredProgram p = elementwise_program();
  p.kernels[0].body =
      bound("io", 4, GpuAxis::BlockX,
            bound("ii", 256, GpuAxis::ThreadX, make_if(i < 1000, make_store("C", i + 1, load("A", i)))));
  HostBuffers buf{{"A", float_values(1000, 1, 0)}, {"B", float_values(1000, 1, 0)}};
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(p, buf); }, &message), "out-of-bounds");
  EXPECT_NE(message.find("'C'"), std::string::npos) << message;
  EXPECT_NE(message.find("1000"), std::string::npos) << message;
  EXPECT_NE(message.find("axpb"), std::string::npos) << message;
  // A read below zero.
  p.kernels[0].body =
      bound("io", 4, GpuAxis::BlockX,
            bound("ii", 256, GpuAxis::ThreadX, make_if(i < 1000, make_store("C", i, load("A", i - 1)))));
  EXPECT_EQ(error_code([&] { interpret(p, buf); }, &message), "out-of-bounds");
  EXPECT_NE(message.find("'A'"), std::string::npos) << message;
}

TEST(Interpreter, GlobalWritesOfDifferentValuesFromTwoBlocksRace) {
  auto run = [](Expr value) {
    Stmt body = bound("b", 2, GpuAxis::BlockX, make_store("Y", make_int(0), value));
    LoweredProgram p =
        program({buffer("Y", DType::f32, 1, BufferRole::Output)}, {kernel("k", {2, 1, 1}, {1, 1, 1}, {"Y"}, body)});
    HostBuffers buf;
    return error_code([&] { interpret(p, buf); });
  };
  EXPECT_EQ(run(cast(DType::f32, var("b"))), "global-memory-race");
  EXPECT_EQ(run(f32(4.0)), "");  // the same value from both: benign
  // Block b publishes Y[b] and reads Y[1 - b]: block 1 overwrites what block 0 has read.
  Stmt exchange = bound("b", 2, GpuAxis::BlockX,
                        make_block({make_store("Y", var("b"), cast(DType::f32, var("b"))),
                                    make_store("Z", var("b"), load("Y", 1 - var("b")))}));
  LoweredProgram p =
      program({buffer("Y", DType::f32, 2, BufferRole::Scratch), buffer("Z", DType::f32, 2, BufferRole::Output)},
              {kernel("exchange", {2, 1, 1}, {1, 1, 1}, {"Y", "Z"}, exchange)});
  HostBuffers buf;
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(p, buf); }, &message), "global-memory-race");
  EXPECT_NE(message.find("block (0, 0, 0)"), std::string::npos) << message;
  // The same exchange split into two kernels is ordered by the launch boundary.
  p.kernels = {kernel("publish", {2, 1, 1}, {1, 1, 1}, {"Y"},
                      bound("b", 2, GpuAxis::BlockX, make_store("Y", var("b"), cast(DType::f32, var("b"))))),
               kernel("read", {2, 1, 1}, {1, 1, 1}, {"Y", "Z"},
                      bound("b", 2, GpuAxis::BlockX, make_store("Z", var("b"), load("Y", 1 - var("b")))))};
  HostBuffers ok;
  interpret(p, ok);
  EXPECT_EQ(ok["Z"], (std::vector<double>{1, 0}));
}

TEST(Interpreter, StepLimitStopsRunawayLoops) {
  Stmt body = serial("k", 0, 1000000, make_store("Y", make_int(0), f32(1.0)));
  LoweredProgram p =
      program({buffer("Y", DType::f32, 1, BufferRole::Output)}, {kernel("k", {1, 1, 1}, {1, 1, 1}, {"Y"}, body)});
  HostBuffers buf;
  InterpOptions opt;
  opt.max_steps = 1000;
  EXPECT_EQ(error_code([&] { interpret(p, buf, opt); }), "interp-step-limit");
}

TEST(Interpreter, MalformedIrIsAnErrorNotACrash) {
  auto run = [](Stmt body, std::vector<std::string> params = {"Y"}) {
    LoweredProgram p =
        program({buffer("Y", DType::f32, 4, BufferRole::Output), buffer("X", DType::f32, 4, BufferRole::Input)},
                {kernel("k", {1, 1, 1}, {4, 1, 1}, std::move(params), body)});
    HostBuffers buf{{"X", {1, 2, 3, 4}}};
    return error_code([&] { interpret(p, buf); });
  };
  EXPECT_EQ(run(make_store("Y", var("nowhere"), f32(1.0))), "unbound-variable");
  EXPECT_EQ(run(make_store("Q", make_int(0), f32(1.0))), "unknown-buffer");
  EXPECT_EQ(run(make_store("Y", make_int(0), load("X", make_int(0)))), "buffer-not-a-parameter");
  EXPECT_EQ(run(make_store("X", make_int(0), f32(1.0)), {"X", "Y"}), "input-written");
  EXPECT_EQ(run(make_store("Y", make_int(0), make_call("sinh", {f32(1.0)}, DType::f32))), "unknown-function");
  EXPECT_EQ(run(make_store("Y", make_int(0), make_load("X", DType::f32, {make_int(0), make_int(0)})), {"X", "Y"}),
            "malformed-ir");
  EXPECT_EQ(run(bound("t", 8, GpuAxis::ThreadX, make_store("Y", var("t") % 4, f32(1.0)))), "block-too-small");
  EXPECT_EQ(run(make_store("Y", make_int(0), cast(DType::f32, var("tid") / (var("tid") - var("tid"))))),
            "division-by-zero");
}

TEST(Interpreter, BuiltinsAndMultiDimensionalBlocks) {
  // Every thread of a (2, 3) grid of (4, 2, 2) blocks writes its identity.
  Expr block_linear = make_var("blockIdx.x") + make_var("blockIdx.y") * 2;
  Expr index = block_linear * 16 + make_var("tid");
  Expr code = make_var("threadIdx.x") + make_var("threadIdx.y") * 10 + make_var("threadIdx.z") * 100 +
              make_var("blockIdx.x") * 1000 + make_var("blockIdx.y") * 10000;
  LoweredProgram p = program({buffer("Y", DType::i32, 6 * 16, BufferRole::Output)},
                             {kernel("ids", {2, 3, 1}, {4, 2, 2}, {"Y"}, make_store("Y", index, code))});
  HostBuffers buf;
  InterpStats stats = interpret(p, buf);
  EXPECT_EQ(stats.blocks, 6);
  EXPECT_EQ(stats.threads, 96);
  for (int by = 0; by < 3; ++by)
    for (int bx = 0; bx < 2; ++bx)
      for (int tz = 0; tz < 2; ++tz)
        for (int ty = 0; ty < 2; ++ty)
          for (int tx = 0; tx < 4; ++tx) {
            int i = (bx + by * 2) * 16 + tx + 4 * ty + 8 * tz;
            EXPECT_EQ(buf["Y"][i], tx + ty * 10 + tz * 100 + bx * 1000 + by * 10000);
          }
}

}  // namespace
}  // namespace cusched
