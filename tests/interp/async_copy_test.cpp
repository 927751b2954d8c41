// Asynchronous copies (cp.async) in the interpreter: a copy's data is visible only
// after the copying thread's wait covers its group, and to other threads only after a
// barrier; reading earlier is an error, not a stale value.
#include <gtest/gtest.h>

#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

// 64 threads copy G into shared S asynchronously, then each writes Y[t] = S[(t + 1) % 64].
// The leading barrier makes the block run statement by statement across its threads.
LoweredProgram rotate_program(bool wait, bool barrier) {
  Expr t = var("t");
  std::vector<Stmt> body = {
      make_barrier(),
      bound("t", 64, GpuAxis::ThreadX, make_block({make_async_copy("S", t, load("G", t)), make_async_commit()}))};
  if (wait) body.push_back(bound("t", 64, GpuAxis::ThreadX, make_async_wait(0)));
  if (barrier) body.push_back(make_barrier());
  body.push_back(bound("t", 64, GpuAxis::ThreadX, make_store("Y", t, load("S", (t + 1) % make_int(64)))));
  Stmt k = make_allocate("S", MemScope::Shared, DType::f32, 64, make_block(body));
  return program({buffer("G", DType::f32, 64, BufferRole::Input), buffer("Y", DType::f32, 64, BufferRole::Output)},
                 {kernel("rotate", {1, 1, 1}, {64, 1, 1}, {"G", "Y"}, k)});
}

HostBuffers inputs() {
  HostBuffers b;
  for (int i = 0; i < 64; ++i) b["G"].push_back(i * 0.5);
  return b;
}

TEST(AsyncCopy, WaitThenBarrierMakesTheDataVisible) {
  HostBuffers b = inputs();
  interpret(rotate_program(true, true), b);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b["Y"][i], ((i + 1) % 64) * 0.5);
}

TEST(AsyncCopy, ReadingBeforeTheWaitIsAnError) {
  HostBuffers b = inputs();
  std::string message;
  EXPECT_EQ(error_code([&] { interpret(rotate_program(false, true), b); }, &message), "async-copy-not-waited")
      << message;
}

TEST(AsyncCopy, ReadingAnotherThreadsCopyWithoutABarrierIsARace) {
  HostBuffers b = inputs();
  EXPECT_EQ(error_code([&] { interpret(rotate_program(true, false), b); }), "shared-memory-race");
}

TEST(AsyncCopy, OnlyGroupsBeyondTheWaitCountComplete) {
  // Two groups; wait(1) completes the first only, so the second group's element is still in flight.
  Expr t = var("t");
  Stmt k = make_allocate("S", MemScope::Shared, DType::f32, 128,
                         make_block({bound("t", 64, GpuAxis::ThreadX,
                                           make_block({make_async_copy("S", t, load("G", t)), make_async_commit(),
                                                       make_async_copy("S", t + 64, load("G", t)), make_async_commit(),
                                                       make_async_wait(1), make_store("Y", t, load("S", t + 64))}))}));
  LoweredProgram p =
      program({buffer("G", DType::f32, 64, BufferRole::Input), buffer("Y", DType::f32, 64, BufferRole::Output)},
              {kernel("two_groups", {1, 1, 1}, {64, 1, 1}, {"G", "Y"}, k)});
  HostBuffers b = inputs();
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "async-copy-not-waited");
}

}  // namespace
}  // namespace cusched
