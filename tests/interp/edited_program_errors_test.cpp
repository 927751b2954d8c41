// Errors that the interpreter and the CUDA emitter raise on lowered programs that lowering
// itself never makes: each test lowers a schedule, checks that the program runs or
// emits, then edits one field of it (a launch dimension, a buffer's scope or alignment,
// a descriptor start) and expects the named error. Also the codegen passes' errors for
// programs no schedule makes (a GPU loop without a constant extent, an unknown mma shape).
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "codegen/mma_layout.h"
#include "codegen/passes/passes.h"
#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

const Sizes kTile{96, 72, 64};

LoweredProgram wgmma_tile() {
  return lower(Schedule::from_json(matmul_context(kTile), wgmma_tile_steps("C", "j", "i", "k", "B", 8, "A")), "matmul");
}

HostBuffers wgmma_tile_inputs() {
  HostBuffers b;
  for (int64_t i = 0; i < kTile.m * kTile.k; ++i) b["A"].push_back(static_cast<float>(std::sin(i * 0.37)));
  for (int64_t i = 0; i < kTile.k * kTile.n; ++i) b["B"].push_back(static_cast<float>(std::cos(i * 0.23)));
  return b;
}

std::string interpreter_error(const LoweredProgram& p) {
  HostBuffers b = wgmma_tile_inputs();
  return error_code([&] { interpret(p, b); });
}

// `s` with every statement for which `pick` holds replaced by edit(a copy of it).
Stmt edit(const Stmt& s, const std::function<bool(const StmtNode&)>& pick,
          const std::function<void(StmtNode&)>& change) {
  auto n = std::make_shared<StmtNode>(*s);
  if (pick(*n)) change(*n);
  for (auto& c : n->body) c = edit(c, pick, change);
  return n;
}

void edit_program(LoweredProgram& p, const std::function<bool(const StmtNode&)>& pick,
                  const std::function<void(StmtNode&)>& change) {
  for (auto& k : p.kernels) k.body = edit(k.body, pick, change);
}

TEST(EditedProgramErrors, TheWgmmaTileRunsUnedited) { EXPECT_EQ(interpreter_error(wgmma_tile()), ""); }

TEST(EditedProgramErrors, AWarpgroupInstructionInABlockOfPartialWarpgroups) {
  LoweredProgram p = wgmma_tile();
  p.kernels[0].block[0] += 1;  // one thread more than whole warpgroups
  EXPECT_EQ(interpreter_error(p), "wgmma-partial-warpgroup");
}

TEST(EditedProgramErrors, ASwizzledOperandCopyNotAlignedTo1024Bytes) {
  LoweredProgram p = wgmma_tile();
  edit_program(
      p, [](const StmtNode& s) { return s.kind == StmtKind::Allocate && s.alignment == 1024; },
      [](StmtNode& s) { s.alignment = 16; });
  EXPECT_EQ(interpreter_error(p), "wgmma-b-misaligned");
}

TEST(EditedProgramErrors, ADescriptorThatDiffersAcrossAWarpgroup) {
  LoweredProgram p = wgmma_tile();
  std::string lane;
  edit_program(
      p, [](const StmtNode& s) { return s.kind == StmtKind::For && s.axis == GpuAxis::ThreadX; },
      [&](StmtNode& s) { lane = s.var; });
  ASSERT_FALSE(lane.empty());
  edit_program(
      p, [](const StmtNode& s) { return s.kind == StmtKind::Wgmma; },
      [&](StmtNode& s) { s.value = s.value + (make_var(lane) % make_int(2)) * make_int(32); });
  EXPECT_EQ(interpreter_error(p), "wgmma-descriptor-divergent");
}

TEST(EditedProgramErrors, TheFloat64ReferenceHasNoWarpgroupTensorCores) {
  const LoweredProgram p = wgmma_tile();
  EXPECT_EQ(error_code([&] { emit_cuda(p); }), "");
  EXPECT_EQ(error_code([&] { emit_cuda(p, {.reference_f64 = true}); }), "wgmma-unsupported");
}

// softmax (small: 8 x 300) with the row maximum M of each row (blockIdx.x) reduced by a
// warp (32 lanes of threadIdx.x), combined across the warp from registers.
LoweredProgram warp_row_maximum() {
  const Problem& softmax = find_problem("softmax");
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "split", "stage": "M", "loop": "k", "factor": 32, "outer": "ko", "inner": "kt"},
    {"op": "bind", "stage": "M", "loop": "i", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "M", "loop": "kt", "kind": "warp"}])");
  return lower(Schedule::from_json(softmax.context("small"), steps), softmax.name);
}

HostBuffers softmax_inputs() {
  HostBuffers b;
  for (int i = 0; i < 8 * 300; ++i) b["X"].push_back(static_cast<float>(i % 7));
  return b;
}

TEST(EditedProgramErrors, LaunchDimensionsSmallerThanTheBoundLoops) {
  LoweredProgram grid = warp_row_maximum();
  HostBuffers b = softmax_inputs();
  EXPECT_EQ(error_code([&] { interpret(grid, b); }), "");
  ASSERT_EQ(grid.kernels[0].grid[0], 8);
  grid.kernels[0].grid[0] = 4;
  EXPECT_EQ(error_code([&] { interpret(grid, b); }), "grid-too-small");
  LoweredProgram block = wgmma_tile();
  ASSERT_EQ(block.kernels[0].block[1], 2) << "two warpgroups on threadIdx.y";
  block.kernels[0].block[1] = 1;
  EXPECT_EQ(interpreter_error(block), "block-too-small");
}

TEST(EditedProgramErrors, ACrossThreadCombineOfASharedBuffer) {
  LoweredProgram p = warp_row_maximum();
  EXPECT_EQ(error_code([&] { emit_cuda(p); }), "");
  std::string reduced;
  edit_program(
      p, [](const StmtNode& s) { return s.kind == StmtKind::AllReduce; }, [&](StmtNode& s) { reduced = s.buffer; });
  ASSERT_FALSE(reduced.empty());
  edit_program(
      p, [&](const StmtNode& s) { return s.kind == StmtKind::Allocate && s.buffer == reduced; },
      [](StmtNode& s) { s.scope = MemScope::Shared; });
  EXPECT_EQ(error_code([&] { emit_cuda(p); }), "allreduce-needs-register");
  HostBuffers b = softmax_inputs();
  EXPECT_EQ(error_code([&] { interpret(p, b); }), "allreduce-needs-register");
}

TEST(EditedProgramErrors, AGpuLoopWithoutAConstantExtent) {
  Kernel k = kernel("k0_test", {1, 1, 1}, {1, 1, 1}, {"Y"},
                    make_for("t", make_int(0), make_var("n"), LoopKind::Serial, GpuAxis::ThreadX,
                             make_store("Y", make_var("t"), f32(1.0))));
  EXPECT_EQ(error_code([&] { assign_launch_dims(k); }), "lowering-internal");
}

TEST(EditedProgramErrors, AnUnknownMmaShape) {
  EXPECT_EQ(error_code([] { mma_layout("m16n8k8"); }), "");
  EXPECT_EQ(error_code([] { mma_layout("m8n8k4"); }), "unknown-mma-shape");
}

}  // namespace
}  // namespace cusched
