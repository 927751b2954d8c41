// Shared copies whose last copy steps stay in the copying threads' registers (cache_read
// registers): softmax's row slices verified in the interpreter (at 2 x 24576, where the
// slices divide evenly over the threads) with 1, 2 and 5 steps of each thread in
// registers, the shared copy shrunk by those steps; a copy that does not divide evenly
// (the small size's 300 columns) or has too few steps; the emitted kernel of the bench
// size compiled by NVRTC to the registers and shared memory that let 8 blocks of 256
// threads share a multiprocessor; and the errors: a read by another thread, a read inside
// a loop that is not unrolled, a tail on a register copy, a padded copy, a pipelined copy,
// a tensor-core stage's copy.
#include <regex>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/device_library.h"
#include "problems/baseline_steps.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/property/schedule_checks.h"
#include "tests/property/staged_tile_schedules.h"

namespace cusched {
namespace {

using testing::lowering_error;
using testing::verify_small;

// Softmax with its small size at 2 rows of 24576 columns: 3072 columns per block of a
// cluster of 8, 3 float4 per thread of 256.
Problem softmax_of_even_rows() {
  Problem p = find_problem("softmax");
  p.sizes["small"] = {{"R", 2}, {"D", 24576}};
  return p;
}

runtime::InterpVerification verify_even(const nlohmann::json& steps, uint64_t seed) {
  return verify_small(softmax_of_even_rows(), steps, seed);
}

std::string ir_of_even(const nlohmann::json& steps) { return testing::ir_of(softmax_of_even_rows(), steps); }

// The lowering error of `steps` at 2 x 24576, or "".
std::string error_of_even(const nlohmann::json& steps, std::string* message = nullptr) {
  const auto e = testing::lowering_failure(softmax_of_even_rows(), steps);
  if (e && message) *message = e->message;
  return e ? e->code : "";
}

// Softmax's row slices over clusters of `cluster` blocks of `threads` threads, the last
// `registers` float4 of each thread in registers (at the small size, D = 24576).
nlohmann::json slices_with_tail(int64_t cluster, int64_t threads, int64_t registers) {
  return cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", cluster, threads, registers);
}

// The element count of the allocation of `buffer` in the printed IR, or -1.
int64_t allocated_elements(const std::string& ir, const std::string& buffer) {
  const std::regex alloc("allocate " + buffer + R"(: \w+\[(\d+)\])");
  std::smatch m;
  return std::regex_search(ir, m, alloc) ? std::stoll(m[1]) : -1;
}

TEST(RegisterTail, SoftmaxSlicesWithStepsInRegistersVerifyInTheInterpreter) {
  // 8 blocks of 256 threads: 3072 columns per block, 3 float4 per thread. 4 blocks of 128
  // threads: 6144 columns, 12 float4 per thread.
  struct Case {
    int64_t cluster, threads, registers, per_step;
  };
  for (const Case& c : {Case{8, 256, 1, 1024}, Case{8, 256, 2, 1024}, Case{4, 128, 5, 512}}) {
    SCOPED_TRACE(std::to_string(c.cluster) + " x " + std::to_string(c.threads) + ", " + std::to_string(c.registers) +
                 " in registers");
    const nlohmann::json steps = slices_with_tail(c.cluster, c.threads, c.registers);
    const auto v = verify_even(steps, 21);
    EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << v.message;
    const std::string ir = ir_of_even(steps);
    const int64_t slice = 24576 / c.cluster;
    EXPECT_EQ(allocated_elements(ir, "X_shared"), slice - c.registers * c.per_step) << ir;
    EXPECT_EQ(allocated_elements(ir, "X_shared_registers"), 4 * c.registers) << ir;
  }
  // Without the tail the whole slice is shared.
  const std::string whole = ir_of_even(slices_with_tail(8, 256, 0));
  EXPECT_EQ(allocated_elements(whole, "X_shared"), 3072) << whole;
  EXPECT_EQ(allocated_elements(whole, "X_shared_registers"), -1) << whole;
}

TEST(RegisterTail, SoftmaxBestFitsEightBlocksPerMultiprocessor) {
  // 8 blocks of 256 threads need at most 32 registers per thread and at most
  // 228 KiB / 8 - 1 KiB (reserved per block) of shared memory per block; a register
  // named by a thread-dependent index would spill to the stack.
  const Problem& p = find_problem("softmax");
  const KernelBundle bundle = make_bundle(lower(Schedule::from_json(p.context("bench"), p.best_schedule), "softmax"));
  runtime::CompileOptions options;
  options.use_cache = false;
  const runtime::CompiledModule m = runtime::compile_bundle(bundle, options);
  ASSERT_EQ(m.resources.size(), 1u);
  const auto& r = m.resources[0];
  EXPECT_LE(r.registers, 32);
  EXPECT_EQ(r.stack_bytes, 0);
  EXPECT_EQ(r.spill_store_bytes, 0);
  EXPECT_LE(r.smem_bytes, 233472 / 8 - 1024);
  EXPECT_GT(r.smem_bytes, 16 * 1024) << "most of the slice stays in shared memory";
}

TEST(RegisterTail, ACopyThatDoesNotDivideOverTheThreadsStaysShared) {
  // The small size's 300 columns: slices of 38 and 34 over 256 threads.
  const std::string uneven = testing::ir_of("softmax", slices_with_tail(8, 256, 2));
  EXPECT_EQ(allocated_elements(uneven, "X_shared_registers"), -1) << uneven;
  EXPECT_EQ(verify_small("softmax", slices_with_tail(8, 256, 2), 3).verdict, cusched::runtime::Verdict::ok);
  // Three float4 per thread: a tail of three keeps one in shared memory.
  const std::string most = ir_of_even(slices_with_tail(8, 256, 3));
  EXPECT_EQ(allocated_elements(most, "X_shared"), 1024) << most;
  EXPECT_EQ(allocated_elements(most, "X_shared_registers"), 8) << most;
  EXPECT_EQ(verify_even(slices_with_tail(8, 256, 3), 4).verdict, cusched::runtime::Verdict::ok);
}

TEST(RegisterTail, AReadInALoopThatIsNotUnrolledIsRefused) {
  nlohmann::json serial = nlohmann::json::array();
  for (const auto& step : slices_with_tail(8, 256, 2))
    if (!(step["op"] == "unroll" && step["stage"] == "S")) serial.push_back(step);
  std::string message;
  EXPECT_EQ(error_of_even(serial, &message), "register-tail-read");
  EXPECT_NE(message.find("'S_ko', which is not unrolled"), std::string::npos) << message;
}

TEST(RegisterTail, AReadByAnotherThreadIsRefused) {
  // The output's threads reversed: thread t writes the float4 that thread 255 - t copied.
  nlohmann::json reversed = nlohmann::json::array();
  for (auto step : slices_with_tail(8, 256, 2)) {
    if (step["op"] == "bind" && step["stage"] == "Y" && step["loop"] == "jt") {
      reversed.push_back({{"op", "reverse"}, {"stage", "Y"}, {"loop", "jt"}, {"name", "jt_rev"}});
      step["loop"] = "jt_rev";
    }
    reversed.push_back(step);
  }
  std::string message;
  EXPECT_EQ(error_of_even(reversed, &message), "register-tail-read");
  EXPECT_NE(message.find("another thread holds the element"), std::string::npos) << message;
  // All in shared memory the reversed threads are fine.
  for (auto& step : reversed)
    if (step["op"] == "cache_read") step["registers"] = 0;
  EXPECT_EQ(verify_even(reversed, 5).verdict, cusched::runtime::Verdict::ok);
}

TEST(RegisterTail, RegisterPipelinedAndTensorCoreCopiesTakeNoTail) {
  nlohmann::json on_register = slices_with_tail(8, 256, 2);
  for (auto& step : on_register)
    if (step["op"] == "cache_read") step["scope"] = "register";
  EXPECT_EQ(error_of_even(on_register), "registers-not-shared");

  nlohmann::json padded = slices_with_tail(8, 256, 2);
  for (auto& step : padded)
    if (step["op"] == "cache_read") step["pad"] = 4;
  EXPECT_EQ(error_of_even(padded), "registers-padded");

  // A 16 x 16 matmul tile whose A copy is pipelined two deep.
  nlohmann::json pipelined = testing::cuda_core_staged_tile_steps(16, 16);
  pipelined.push_back({{"op", "pipeline"}, {"stage", "C"}, {"loop", "ko"}, {"depth", 2}, {"engine", "cp.async"}});
  EXPECT_EQ(lowering_error("matmul", pipelined), "");
  for (auto& step : pipelined)
    if (step["op"] == "cache_read") step["registers"] = 1;
  EXPECT_EQ(lowering_error("matmul", pipelined), "registers-pipelined");

  // A TF32 mma.sync tile (A staged with 4 floats of padding, B with 8): the fragments are
  // read from shared memory by the tensor-core lanes, not by the copying threads.
  nlohmann::json mma =
      tensor_core_tile_steps("C", "i", "j", "k", "A", 4, "B", 8, "", {32, 16, 16, 8, 8, "tf32", 0, "m16n8k8"});
  EXPECT_EQ(lowering_error("matmul", mma), "");
  for (auto& step : mma)
    if (step["op"] == "cache_read") {
      step["registers"] = 1;
      step["pad"] = 0;
    }
  EXPECT_EQ(lowering_error("matmul", mma), "registers-tensor-cores");
}

}  // namespace
}  // namespace cusched
