#pragma once
// A kernel of the loop IR compiled for the CPU interpreter: variables resolved to
// slots, buffers to ids, operators to type-specific opcodes, and for every statement
// whether it holds a Barrier or AllReduce. Built once per kernel, then run for every
// block and thread.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ir.h"
#include "codegen/mma_layout.h"
#include "dsl/math_function.h"

namespace cusched {

enum class IOp {
  Const,
  Var,
  Add,
  Sub,
  Mul,
  FloatDiv,
  IntDiv,
  FloatMod,
  IntMod,
  FloatMin,
  FloatMax,
  IntMin,
  IntMax,
  Pow,
  IntXor,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  Not,
  Neg,
  Select,
  Cast,
  Math,  // a math function of the language (dsl/math_function.h), exact then rounded
  RoundTf32,
  RoundBf16,
  RoundF16,
  Load,
  Affine,  // integer linear combination: imm + sum(coef * slot) + sum(arg_coefs[i] * args[i])
};

// The format an operator's result is rounded to (its ExprNode::type).
enum class Rounding { None, F32, F16, BF16 };

struct CExpr {
  IOp op = IOp::Const;
  Rounding rounding = Rounding::None;
  DType type = DType::f32;
  double imm = 0;                    // Const: the value, already in `type`
  int slot = -1;                     // Var
  int buffer = -1;                   // Load
  const MathFunction* fn = nullptr;  // Math
  std::vector<CExpr> args;
  std::vector<std::pair<int, double>> slot_terms;  // Affine: (slot, coefficient)
  std::vector<double> arg_coefs;                   // Affine: one per arg
  Expr source;                                     // for messages
};

struct InterpBuffer {
  std::string name;
  MemScope scope = MemScope::Global;
  DType dtype = DType::f32;
  int64_t size = 0;                     // elements (per thread for registers)
  BufferRole role = BufferRole::Input;  // global buffers
  int64_t alignment = 16;               // shared: byte alignment of the array's start
  std::vector<int64_t> shape;           // global: the buffer's shape (tensor copies address it)
};

struct CStmt {
  StmtKind kind = StmtKind::Block;
  bool collective = false;  // holds a Barrier, AllReduce, Mma or LdMatrix
  std::vector<CStmt> body;
  // For
  int slot = -1;
  CExpr min, extent;
  GpuAxis axis = GpuAxis::None;
  // Store, Allocate, AllReduce
  int buffer = -1;
  CExpr index, value;
  // If
  CExpr cond;
  // AllReduce
  int pair_buffer = -1;
  int third_buffer = -1;  // variance: the count
  ReduceOp reduce_op = ReduceOp::Sum;
  int reduce_axis = 0;  // 0, 1, 2 for threadIdx.x, y, z (unused for cluster_kind)
  int64_t width = 1;
  bool block_kind = false;
  bool cluster_kind = false;  // across the blocks of the cluster (cluster.x)
  // Mma (buffer/index: the accumulators)
  std::vector<CExpr> operands;  // A fragment elements, then B fragment elements
  const MmaLayout* layout = nullptr;
  Precision mma_precision = Precision::f32;  // its operands' precision (KernelRunner::product)
  // LdMatrix (buffer/index: the fragment; value: this lane's row address)
  // Wgmma (buffer/index: accumulators; operands: A; source_buffer/value: B and its
  // descriptor start; width: N). WgmmaWait: width groups in flight.
  int source_buffer = -1;
  int matrices = 4;
  bool transpose = false;
  // AsyncCopy: bytes per copy; BulkCopy: the mbarrier buffer and element (extent: bytes)
  int64_t copy_bytes = 4;
  int barrier = -1;
  CExpr barrier_index;
  // Wgmma: the operands' precision (tf32, bf16, f16)
  Precision wgmma_precision = Precision::tf32;
  // TensorCopy: source_buffer is the global source, operands its coordinates
  std::vector<int64_t> box;
  int64_t swizzle_bytes = 0;
  const StmtNode* source = nullptr;
};

// Slots of the built-in variables, bound in every thread.
enum BuiltinSlot : int { kThreadX = 0, kThreadY, kThreadZ, kBlockX, kBlockY, kBlockZ, kTid, kBuiltinSlots };

struct CompiledKernel {
  std::string name;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t cluster = 1;                // blocks per cluster along x (grid.x when > 1)
  std::vector<InterpBuffer> buffers;  // globals used by the kernel, then one per Allocate
  std::vector<std::string> slot_names;
  CStmt body;
};

// Compiles one kernel; fails with a cusched::UserError on IR the interpreter cannot
// run (unbound variable, unknown buffer or function, malformed Load, ...).
CompiledKernel compile_kernel(const Kernel& kernel, const LoweredProgram& program);

}  // namespace cusched
