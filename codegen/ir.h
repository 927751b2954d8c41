#pragma once
// The loop IR that lowering produces and that both the CPU interpreter and the CUDA
// emitter consume. Expressions are dsl Exprs in which:
//   - Var names are loop variables, or the built-ins "threadIdx.x|y|z",
//     "blockIdx.x|y|z" and "tid" (the linear thread index within the block);
//   - Load has exactly one argument, a flat element index into the named buffer;
//   - Call may also name the rounding functions "round_tf32", "round_bf16",
//     "round_f16" (round an f32 value to that operand precision, nearest-even;
//     tf32 is "round to nearest, ties away" as cvt.rna does), and the fast-math calls
//     "fast_exp", "fast_log", "fast_div" (codegen/fast_math.h): the GPU computes them
//     with approximate intrinsics, the interpreter exactly.
// Execution model (what the interpreter emulates and the emitter implements):
//   - A Kernel runs its body once per block of its grid and per thread of its block.
//   - For loops bound to blockIdx.* iterate over the grid (they are the outermost
//     statements of a kernel body); the loop variable equals the block index.
//   - For loops bound to threadIdx.* are per-thread guards: the thread whose index on
//     that axis is t runs the body once with the variable equal to t, if t < extent.
//     A thread loop whose body holds a Barrier or AllReduce has extent equal to the
//     block's size on that axis, so that every thread of the block reaches it.
//   - A kernel with `cluster` C > 1 runs its blocks along x (grid.x == C) as one
//     thread-block cluster: they run at the same time. For loops bound to cluster.x are
//     per-block guards like thread loops: the block whose x index is r runs the body
//     with the variable equal to r, if r < extent; one whose body holds a Barrier or
//     AllReduce has extent C.
//   - Serial/Unrolled/Vectorized For loops run their body for var = min .. min+extent-1
//     in every thread that reaches them; around a Barrier or AllReduce, their bounds
//     are the same in all threads.
//   - Allocate(Register) gives each thread its own array; Allocate(Shared) gives the
//     block one array; Global buffers are kernel parameters.
//   - Barrier is __syncthreads(): every thread of the block reaches it.
//   - AllReduce combines the register value buffer[index] (and, for a pair reduction,
//     pair_buffer[index]: argmin/argmax's index, logsumexp's sum of exp(v - max),
//     variance's sum of squared deviations, with third_buffer[index], its count) over
//     the `width` threads that differ only in their index
//     on `axis`, and leaves the combined value in all of them. With kind "cluster"
//     (axis cluster.x, width C) it combines the values that the threads of the same
//     index hold in each block of the cluster, in an order that is the same in every
//     block; every thread of the cluster reaches it. `combined_axis` and
//     `combined_width` name the combine across threads that precedes it in the same
//     stage (None when there is none): when that group is the whole block, every thread
//     of a block holds the same value and one value per block crosses the cluster.
//   - AsyncCopy reads `copy_bytes` (4 or 16) bytes starting at `value` (a load of a
//     global buffer) when the thread reaches it and writes them to buffer[index ..]
//     (shared) later: the write belongs to the thread's open copy group, AsyncCommit
//     closes that group, and AsyncWait with `width` N completes all but the thread's N
//     most recent groups. Other threads see the data only after the writing thread's
//     wait and a Barrier. A 16-byte copy needs both element indices 16-byte aligned.
//   - Mbarrier statements work on buffer[index], a shared i64 element holding a memory
//     barrier (mbarrier) with phases 0, 1, 2, ...: MbarrierInit sets it up for `width`
//     arrivals per phase (one thread; a Barrier before other threads use it);
//     MbarrierExpect arrives once and announces `value` more bytes for the current
//     phase; MbarrierWait blocks until the phase whose parity is `value` (0 or 1) has
//     completed. A phase completes when all its arrivals happened and the bytes copied
//     into it equal the bytes announced.
//   - BulkCopy (the Hopper bulk copy engine) copies `extent` bytes (a multiple of 16)
//     from `value` (a load of a global buffer: the first element) to buffer[index ..]
//     (shared), both 16-byte aligned, and counts them towards the current phase of the
//     mbarrier barrier[barrier_index]. A thread sees the data after its MbarrierWait on
//     that phase; no Barrier is needed.
//   - TensorCopy (the Hopper tensor memory accelerator, cp.async.bulk.tensor) copies a
//     box of the global buffer `source` (extents `box`, outermost first) whose first
//     element has the coordinates `operands` (outermost first; any of them may lie
//     outside the buffer, which may be negative) into buffer[index ..] (shared), row-major
//     and dense; elements outside the source read as zero. With `swizzle_bytes` 128 the
//     16-byte chunk j of the box's 128-byte row r lands at chunk j ^ (r % 8) of that row
//     (rows of exactly 128 bytes, the destination 1024-byte aligned); without, the
//     destination is 128-byte aligned. The whole box's bytes (zeros included) count
//     towards the current phase of barrier[barrier_index]. The runtime describes the
//     source and box by the kernel parameter `tensor_map` (a CUtensorMap).
//   - Mma is one warp-wide tensor-core instruction (codegen/mma_layout.h): every thread
//     of a warp reaches it together; each lane supplies its fragment of A and B
//     (`operands`: the A elements, then the B elements, each an expression evaluated in
//     that lane) and holds four f32 accumulators at buffer[index .. index+3]; the warp's
//     16x8 tile D = C + A x B replaces them. The block's threads form warps in order of
//     their linear index `tid`.
//   - Wgmma is one warpgroup-wide asynchronous tensor-core instruction,
//     wgmma.mma_async m64nNk8 with tf32 operands or m64nNk16 with bf16 or f16 operands
//     (`mma_precision`; codegen/wgmma_layout.h; N = `width`): the 128 threads of each
//     warpgroup (threads 128w .. 128w+127 by `tid`) reach it together. Each thread
//     supplies four (k8) or eight (k16) A elements (`operands`, evaluated in that thread;
//     k16: rounded to the operand type) and holds N/2 f32 accumulators at buffer[index ..];
//     B (K x N) is read from the shared buffer `source` (f32 for k8, of the operand type
//     for k16) through a matrix descriptor whose start is element `value`: K-major rows
//     of 128 bytes with the 128-byte swizzle, rows in groups of 8 that are 1024 bytes
//     apart, the start 32-byte aligned inside a 1024-byte aligned group. The
//     instruction reads its operands and writes its accumulators at some time before a
//     WgmmaWait retires its group: WgmmaCommit closes the warpgroup's open group,
//     WgmmaWait with `width` N retires all but the N most recent groups; until then its
//     operand registers and shared elements must not change and its accumulators must
//     not be read. WgmmaWait may name `source`
//     (register buffer) elements index .. index+size-1 that the thread keeps unchanged
//     until that point (the compiler must not reuse their registers earlier).
//     WgmmaFence orders the thread's register writes before the next Wgmma reads them;
//     AsyncProxyFence orders the thread's shared-memory writes (plain stores and
//     completed cp.async copies) before Wgmma instructions read them; a Barrier after
//     it publishes them to the block.
//   - LdMatrix is one warp-wide ldmatrix.sync.aligned.m8n8 load (codegen/ldmatrix.h):
//     every thread of a warp reaches it together. It reads `matrices` (1, 2 or 4) 8x8
//     matrices of 16-byte rows from the shared buffer `source`; lane l supplies in `value`
//     the element index of row l % 8 of matrix (l / 8) % matrices (16-byte aligned). From
//     matrix j each lane receives one 32-bit word, `16 / element bytes`-element rows
//     seen as four words: lane l gets word l % 4 of row l / 4, or with `transpose`
//     (16-bit elements only) the elements of column l / 4 in rows 2 (l % 4) and
//     2 (l % 4) + 1. The word's elements go to buffer[index + j * w ..] (a register
//     array of the source's element type; w = 4 / element bytes elements per word).
//   - Scan replaces the register value buffer[index] of each thread by the exclusive
//     prefix (Sum or Product, in thread order) of the values of the `width` threads that
//     differ only in threadIdx.x (aligned groups of `width`, a power of two up to 32 or a
//     multiple of 32 dividing blockDim.x): the first thread of a group gets the
//     identity. Every thread of the group also receives the group's total in the
//     register source[0]. Every thread of the block reaches it; values are combined in
//     one fixed order, so all threads see the same total bits.
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"
#include "dsl/expr.h"
#include "dsl/schedule_state.h"

namespace cusched {

enum class StmtKind {
  Block,
  For,
  Store,
  Allocate,
  If,
  Barrier,
  AllReduce,
  Mma,
  AsyncCopy,
  AsyncCommit,
  AsyncWait,
  BulkCopy,
  TensorCopy,
  MbarrierInit,
  MbarrierExpect,
  MbarrierWait,
  LdMatrix,
  Wgmma,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
  AsyncProxyFence,
  Scan
};

// The fields of a StmtNode that each kind uses (set by its make_* function below; every
// other field keeps its default and means nothing for that kind):
//   kind             fields
//   Block            body (the statements in order)
//   For              var, min, extent, loop_kind, axis, body[0]
//   Store            buffer, index, value
//   Allocate         buffer, scope, dtype, size (elements), alignment (shared: bytes), body[0]
//   If               cond, body[0] (then), body[1] (else, optional)
//   Barrier          -
//   AllReduce        buffer, index, pair_buffer (argmin/argmax, logsumexp, variance),
//                    third_buffer (variance), reduce_op, reduce_axis,
//                    width (threads or blocks combined), reduce_kind, combined_axis, combined_width
//   Mma              buffer, index (accumulators), mma_shape, mma_precision, operands (A then B)
//   AsyncCopy        buffer, index (shared destination), value (global load), copy_bytes
//   AsyncCommit      -
//   AsyncWait        width (groups that may stay in flight)
//   BulkCopy         buffer, index (shared destination), value (global load), extent (bytes),
//                    barrier, barrier_index (the mbarrier)
//   TensorCopy       buffer, index (shared destination), source (global buffer), operands
//                    (coordinates), box, swizzle_bytes, tensor_map, barrier, barrier_index
//   MbarrierInit     buffer, index (the mbarrier), width (arrivals per phase)
//   MbarrierExpect   buffer, index (the mbarrier), value (bytes announced)
//   MbarrierWait     buffer, index (the mbarrier), value (phase parity)
//   LdMatrix         buffer, index (fragment), source (shared buffer), value (row address),
//                    matrices, transpose
//   Wgmma            buffer, index (accumulators), mma_shape, mma_precision, width (N),
//                    operands (A), source (B's shared buffer), value (B's descriptor start)
//   WgmmaFence       -
//   WgmmaCommit      -
//   WgmmaWait        width (groups that may stay in flight), source, index, size (registers held)
//   AsyncProxyFence  -
//   Scan             buffer, index (value in, exclusive prefix out), source (total, element 0),
//                    reduce_op (Sum or Product), reduce_axis (threadIdx.x), width (threads scanned)
struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind = StmtKind::Block;
  std::vector<Stmt> body;  // Block: children; For/Allocate/If: one child (the body); If: optional second = else
  // For
  std::string var;
  Expr min, extent;  // extent is a constant IntImm except for guarded tails
  LoopKind loop_kind = LoopKind::Serial;
  GpuAxis axis = GpuAxis::None;
  // Store / Allocate / AllReduce / AsyncCopy (AsyncWait: `width` groups may stay in flight)
  std::string buffer;
  Expr index;                         // Store, AllReduce: flat element index
  Expr value;                         // Store
  MemScope scope = MemScope::Global;  // Allocate
  DType dtype = DType::f32;           // Allocate
  int64_t size = 0;                   // Allocate: elements; WgmmaWait: registers held
  int64_t alignment = 16;             // Allocate (shared): byte alignment of the array
  // If
  Expr cond;
  // AllReduce
  ReduceOp reduce_op = ReduceOp::Sum;
  std::string pair_buffer;   // pair reductions: the register buffer of the second value
  std::string third_buffer;  // variance: the register buffer of the third value (the count)
  GpuAxis reduce_axis = GpuAxis::ThreadX;
  int64_t width = 32;
  std::string reduce_kind = "warp";       // "warp", "block" or "cluster"
  GpuAxis combined_axis = GpuAxis::None;  // kind "cluster": the preceding combine across threads
  int64_t combined_width = 0;
  // Mma (buffer/index: the accumulators)
  std::string mma_shape;                      // "m16n8k8" or "m16n8k16"
  Precision mma_precision = Precision::tf32;  // tf32, 3xtf32, bf16 or f16
  std::vector<Expr> operands;                 // this lane's A fragment elements, then its B fragment elements
  // LdMatrix (buffer/index: the fragment; value: this lane's row address in `source`)
  // Wgmma (buffer/index: accumulators; operands: A; source/value: B's shared buffer
  // and descriptor start; width: N). WgmmaWait (width: groups in flight; source/index/
  // size: the registers held)
  std::string source;
  int matrices = 4;
  bool transpose = false;
  // AsyncCopy: bytes per copy (4 or 16)
  int64_t copy_bytes = 4;
  // BulkCopy (extent: the byte count): the mbarrier that tracks the copy
  std::string barrier;
  Expr barrier_index;
  // TensorCopy: the box's extents (outermost first), its swizzle (0 or 128 bytes) and
  // the kernel parameter that describes it
  std::vector<int64_t> box;
  int64_t swizzle_bytes = 0;
  std::string tensor_map;
};

Stmt make_block(std::vector<Stmt> body);
Stmt make_for(const std::string& var, Expr min, Expr extent, LoopKind kind, GpuAxis axis, Stmt body);
Stmt make_store(const std::string& buffer, Expr index, Expr value);
Stmt make_allocate(const std::string& buffer, MemScope scope, DType dtype, int64_t size, Stmt body);
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = nullptr);
Stmt make_barrier();
Stmt make_allreduce(const std::string& buffer, const std::string& pair_buffer, Expr index, ReduceOp op, GpuAxis axis,
                    int64_t width, const std::string& kind, GpuAxis combined_axis = GpuAxis::None,
                    int64_t combined_width = 0, const std::string& third_buffer = "");
Stmt make_scan(const std::string& buffer, Expr index, const std::string& total, ReduceOp op, int64_t width);
Stmt make_async_copy(const std::string& shared_buffer, Expr index, Expr global_load, int64_t bytes = 4);
Stmt make_bulk_copy(const std::string& shared_buffer, Expr index, Expr global_load, Expr bytes,
                    const std::string& barrier, Expr barrier_index);
Stmt make_tensor_copy(const std::string& shared_buffer, Expr index, const std::string& source,
                      std::vector<Expr> coordinates, std::vector<int64_t> box, int64_t swizzle_bytes,
                      const std::string& tensor_map, const std::string& barrier, Expr barrier_index);
// The tensor maps that a kernel body's TensorCopy statements name, in order of first use.
std::vector<TensorMapSpec> tensor_maps_of(const Stmt& body);
Stmt make_mbarrier_init(const std::string& barrier, Expr index, int64_t arrivals);
Stmt make_mbarrier_expect(const std::string& barrier, Expr index, Expr bytes);
Stmt make_mbarrier_wait(const std::string& barrier, Expr index, Expr parity);
Stmt make_async_commit();
Stmt make_async_wait(int64_t groups_in_flight);
Stmt make_mma(const std::string& shape, Precision precision, const std::string& acc, Expr acc_index,
              std::vector<Expr> operands);
Stmt make_ldmatrix(const std::string& fragment, Expr fragment_index, const std::string& shared_source, Expr row_address,
                   int matrices, bool transpose);
Stmt make_wgmma(Precision precision, int64_t n, const std::string& acc, Expr acc_index, std::vector<Expr> a_operands,
                const std::string& b_shared, Expr b_start);
Stmt make_wgmma_fence();
Stmt make_wgmma_commit();
// `held`: a register buffer whose elements held_index .. +held_count-1 stay unchanged until here ("" for none).
Stmt make_wgmma_wait(int64_t groups_in_flight, const std::string& held = "", Expr held_index = Expr(),
                     int64_t held_count = 0);
Stmt make_async_proxy_fence();
// An Allocate with a byte alignment (shared arrays).
Stmt make_aligned_allocate(const std::string& buffer, MemScope scope, DType dtype, int64_t size, int64_t alignment,
                           Stmt body);

// A shared copy whose last copy steps stay in registers (cache_read registers): thread
// tid's step v copied unit v * threads + tid (`lanes` elements from flat index
// unit * lanes of `shared`); the steps at flat index `start` and above went to element
// (v - start / (threads * lanes)) * lanes + lane of the thread's register array `registers`.
struct RegisterTail {
  std::string shared, registers;
  int64_t start = 0, threads = 0, lanes = 1;
};

struct Kernel {
  std::string name;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  std::vector<std::string> params;  // global buffers, in parameter order
  Stmt body;
  int launch_max_threads = 0, launch_min_blocks = 0;
  int64_t cluster = 1;                     // blocks per thread-block cluster along x (1: none)
  int raster_group = 0;                    // block_raster: tiles in groups along blockIdx.x (raster_blocks)
  std::map<std::string, L2Hint> l2_hints;  // input buffer -> L2 eviction priority of its loads
  std::vector<RegisterTail> register_tails;
};

// The lowered program: the global buffers and the kernels, launched in order.
struct LoweredProgram {
  std::string problem;
  std::string schedule_hash;
  Precision precision = Precision::f32;
  std::string math = "exact";       // "fast" when a stage uses fast-math intrinsics
  double arithmetic_share = 1.0;    // of the problem's reduction work, what the schedule's algorithm does
  std::vector<BufferSpec> buffers;  // inputs, outputs and scratch (intermediate stages computed at root)
  std::vector<Kernel> kernels;
  std::vector<std::string> schedule_text;  // the steps, one line each, for comments

  const BufferSpec* find_buffer(const std::string& name) const;
};

// Readable text of the IR (`cusched lower --emit ir`).
std::string print_ir(const LoweredProgram& p);
std::string print_stmt(const Stmt& s, int indent = 0);
// The statement with `f` applied to every expression it holds (bounds, indices, values,
// conditions, operands), at every depth.
Stmt map_stmt_exprs(const Stmt& s, const std::function<Expr(const Expr&)>& f);
// True when the statement contains a Barrier, AllReduce, Scan, Mma, LdMatrix or a Wgmma
// statement (Wgmma, WgmmaFence, WgmmaCommit, WgmmaWait) anywhere inside.
bool contains_collective(const Stmt& s);

}  // namespace cusched
