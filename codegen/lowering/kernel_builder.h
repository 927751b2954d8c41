#pragma once
// The state shared by the lowering units while one program's kernels are built: the
// schedule, the global buffers, the buffers each kernel uses, its register tails, the
// prologues of its software-pipelined loops and its shared output tiles. Each member
// function is defined in the unit named beside it (codegen/lowering/*.cpp); build()
// is driven by build_kernels (codegen/passes/build_kernels.cpp).
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/lowering/loop_nest.h"
#include "codegen/lowering/realization.h"
#include "dsl/schedule_state.h"

namespace cusched::lowering {

// The thread count placeholder that assign_launch_dims replaces by the block's size.
inline const char* kNumThreads = "__nthreads";

// Tensor -> its realization where a statement is built.
using Env = std::map<std::string, Realization>;

// Whether `buffer` is the buffer of a shared-memory copy in `caches`.
inline bool is_shared_copy(const Env& caches, const std::string& buffer) {
  for (const auto& [source, r] : caches)
    if (r.buffer == buffer) return r.scope == MemScope::Shared;
  return false;
}
// An element type with the storage of a realization, allocated around some statements.
using Allocation = std::pair<DType, Realization>;

// A stage being built: its schedule, loop nest, the region it writes and its body over
// the nest's IR variables (loads still multi-dimensional).
struct Ctx {
  const FuncDef& f;
  const StageSchedule& s;
  DerivedNest& nest;
  const Realization& self;
  Expr body;  // over IR variables, loads still multi-dimensional
  std::map<std::string, Expr> orig;
};

// The stage's loop nest over its region `self`, and its body over the nest's IR
// variables with loads still multi-dimensional.
struct StageNest {
  DerivedNest nest;
  Expr body;
  std::map<std::string, Expr> orig;
};

// The region of a source that a staged copy holds, and the source's extents.
struct CopyRegion {
  std::vector<Expr> min;
  std::vector<int64_t> extent, full;
};

// What is placed at loop p of a stage (with_placements): the statements at the top of
// its body, their storage, and the software pipeline's copies when the loop has one.
struct Placement {
  Placement(Ctx& c, int p, Env env, Env caches, bool in_thread, bool in_serial)
      : c(c),
        p(p),
        here(c.nest.loops[p]),
        loop(here.info.name),
        env(std::move(env)),
        caches(std::move(caches)),
        in_thread(in_thread),
        in_serial(in_serial) {}
  Ctx& c;
  int p;
  const DerivedLoop& here;
  std::string loop;                      // the loop's name in the schedule
  std::map<std::string, int64_t> sweep;  // the loops inside p
  Env env, caches;
  bool in_thread, in_serial;
  std::vector<Stmt> pre;           // placed before the rest of the body
  std::vector<Allocation> allocs;  // element type and storage of each placement
  // Copies staged at this loop. A software-pipelined loop (pipeline) keeps `depth`
  // buffers per copy: the copies for iteration v + depth - 1 are issued asynchronously
  // at the top of iteration v, and the first depth - 1 before the loop. Copies move
  // 16 bytes per thread and step where alignment is provable (copies_16_bytes), on
  // the bulk engine whole rows issued by one thread and tracked by one mbarrier per
  // buffer of the pipeline, on the tensor engine one box per copy issued by one thread
  // and tracked the same way.
  int64_t depth = 0;
  CopyEngine engine = CopyEngine::CpAsync;
  // Iterations the cp.async copies run ahead: depth - 1, one fewer while a k-step of
  // wgmma instructions stays in flight and still reads the buffer before.
  int64_t lead = 0;
  bool wgmma = false;
  std::string bar;                              // the bulk and tensor pipelines' mbarriers, one per buffer
  std::vector<std::vector<Stmt>> async_copies;  // [iteration offset]: issues (lead + 1 of them)
  std::vector<Expr> bulk_bytes;                 // [iteration offset]: bytes the bulk or tensor copies move
  std::vector<Allocation> pipeline_buffers;
  int64_t min_threads = 1;
  std::map<std::string, CopyRegion> copy_regions;  // source -> region copied
  bool end_barrier = false;  // a barrier closes the body: every thread is done with the iteration's buffer
};

// A cache_read being placed: its region of the source, the copy's realization, and
// which of the region's dimensions stay inside the source.
struct StagedCopy {
  explicit StagedCopy(const CacheRead& cr) : cr(cr) {}
  const CacheRead& cr;
  std::vector<int64_t> full;
  DType t = DType::f32;
  std::vector<Expr> mn;
  std::vector<int64_t> ex;
  MemScope scope = MemScope::Shared;
  Realization r;
  // cache_read innermost moved a dimension other than the last innermost: the copy's
  // rows do not run along the source's, so it moves one element at a time.
  bool transposed = false;
  int64_t total = 1;  // elements of the region
  std::vector<bool> inside;
  // Dimensions whose region may start below 0 (a padded load, or a loop that enters the
  // index with a negative coefficient swept past its end, as a tensor-core tile's tail is):
  // their copies check the lower bound too.
  std::vector<bool> may_start_below;
  int64_t pitch = 0;  // elements per row of the copy, its padding included
  // The stage reads the source through padded loads: the region may start below 0, and
  // its elements outside the source hold the padding value (`outside`).
  bool padded = false;
  Expr outside;
  // The region spans the loops' whole range (tails included): a wgmma stage's copies, and
  // a tensor-core stage's shared copies made by its threads (cp.async or plain).
  bool whole_tiles = false;

  // The dimensions from `run_first` on form one run of consecutive elements in both the
  // source and the copy (chunk_run): the innermost one, or where its extent holds no
  // whole number of chunks, the innermost ones merged.
  size_t run_first = 0;
  // The coordinates of the region's unit number e, where a unit is `lanes` consecutive
  // elements of the run from run_first on (lanes divides its length): the coordinates
  // of the unit's first element. A unit's other elements follow it in both buffers, so
  // that adding a lane to the last coordinate addresses them even across a row.
  std::vector<Expr> src_index(const Expr& e, int64_t lanes = 1) const;
  // Elements of the region outside the source (tails of non-dividing splits, padding) are
  // not copied.
  std::vector<Expr> in_source(const std::vector<Expr>& a) const;
  // A copy of the elements that lie in the source; with `zero_tails` (a tensor-core stage's
  // shared copy, whose tensor cores read whole staged tiles) the elements outside it (tails)
  // are written as zeros, and for a padded source as the padding value.
  Stmt zero_outside(bool zero_tails, const std::vector<Expr>& conds, Stmt copy, const Realization& dst,
                    const std::vector<Expr>& a, int64_t lanes) const;
};

// The tensor-core tile of a stage: its three innermost loops (the last two pure loops
// m and n and the last reduction loop k), the factors of its product that vary with m
// (fa) and with n (fb), and the thread loops between its first reduction loop and the
// tile, which pick a warp's (or warpgroup's) tile.
struct TensorCoreTile {
  int nl = 0, r0 = 0, qm = 0, qn = 0, qk = 0;
  std::vector<int> red;
  std::string mv, nv, kv;
  int64_t M = 0, N = 0, K = 0;
  Expr fa, fb;
  std::vector<const DerivedLoop*> warp_loops;
};

// A fragment element of a tensor-core tile: its value and the guard (undefined: none)
// outside which it is zero.
struct TileOperand {
  Expr value, cond;
  Expr guarded() const { return cond.defined() ? select(cond, value, make_float(0.0)) : value; }
};

// A block's copy loop over `units` units, each thread taking every n-th: unrolled when
// each thread runs it at most 16 times (with at least `min_threads` threads), so that
// its loads issue back to back.
LoopKind copy_loop_kind(int64_t units, int64_t min_threads);
// The buffer of a pipeline of `depth` buffers that iteration `it` uses.
Expr buffer_of(const Expr& it, int64_t depth);
// A loop `v` that spreads `units` over the block's threads: in iteration v the thread
// `tid` takes unit e = v * threads + tid, guarded by e < units (drop_covered_copy_guards
// removes the guard when no thread overruns).
Stmt over_block_threads(const std::string& v, int64_t units, LoopKind kind,
                        const std::function<Stmt(const Expr&)>& body);

class KernelBuilder {
 public:
  KernelBuilder(const ScheduleState& st, const std::vector<BufferSpec>& globals);
  // The kernel of root stage `root`, the index-th kernel of the program.
  Kernel build(const FuncDef& root, int index);  // kernel_builder.cpp

 private:
  const ScheduleState& st_;
  std::map<std::string, BufferSpec> globals_;
  std::set<std::string> used_;
  std::vector<RegisterTail> register_tails_;  // of the kernel being built
  int uid_ = 0;
  struct Prologue {
    Stmt copies;                      // issued before the loop
    std::vector<Allocation> buffers;  // the pipeline's buffers, allocated around the loop
  };
  std::map<std::string, Prologue> prologue_;  // loop variable of a pipelined loop -> its prologue
  std::set<std::string> output_tiles_;        // shared buffers that stand for a block's output region

  // kernel_builder.cpp
  std::vector<std::string> order_of_globals() const;
  const FuncDef& def(const std::string& name) const { return *st_.stage_def(name); }

  // stage_values.cpp: a stage's values, with inlined stages expanded and loads lowered
  Expr inline_stages(const Expr& e) const;
  Expr with_size_values(const Expr& e) const;  // the problem's sizes as constants
  // The extents of an input tensor or stage at the problem's sizes.
  std::vector<int64_t> source_shape(const std::string& name) const;
  Expr lower_value(const Expr& e, const Env& env, const Env& caches, const StageSchedule& s,
                   bool round_operands = true);
  Expr load(const std::string& name, const std::vector<Expr>& args, DType t, const Env& env, const Env& caches);

  // regions.cpp: the region of a tensor that a body reads
  bool region_of(const Expr& body, const std::string& name, const std::map<std::string, Expr>& orig,
                 const std::map<std::string, int64_t>& sweep, const std::vector<int64_t>& full, std::vector<Expr>& min,
                 std::vector<int64_t>& extent, bool whole_tile = false, bool* spans_loops = nullptr);

  // stage_loops.cpp: split, fuse, reorder, bind, unroll, vectorize (the loop nest)
  StageNest stage_nest(const FuncDef& f, const Realization& self);
  Stmt build_stage(const FuncDef& f, const Realization& self, Env env, bool in_thread, bool in_serial,
                   const Env& caches = {});
  Stmt emit(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial);
  Stmt loops_down_to(Ctx& c, int p, int stop, const Env& env, const Env& caches, bool in_thread, bool in_serial,
                     const std::function<Stmt(const Env&, const Env&)>& leaf);
  Stmt make_loop(const DerivedLoop& l, Stmt body, bool keep_kind = true);
  static int64_t threads_at_least(const Ctx& c);
  int first_reduction(const Ctx& c) const;
  int leading_block_loops(const Ctx& c) const;

  // placements.cpp: what compute_at and cache_read place at a loop
  Stmt with_placements(Ctx& c, int p, Env env, Env caches, bool in_thread, bool in_serial,
                       const std::function<Stmt(const Env&, const Env&)>& inner);

  // compute_at.cpp: producers computed at a loop, and the copies they share (cache_read share)
  void place_producers(Placement& pl, const Env& shared_caches);
  bool check_shared_copy_reads(const Ctx& c, int p, const FuncDef& pd, const Realization& region,
                               const std::string& source, const CopyRegion& copy, MemScope scope);

  // staged_copy.cpp: cache_read, its region and the choice of copy strategy
  void place_copy(Placement& pl, const CacheRead& cr);
  StagedCopy staged_copy(Placement& pl, const CacheRead& cr);
  bool copies_16_bytes(const Placement& pl, const StagedCopy& cp, const Realization& dst);
  void keep_pipeline_buffers(Placement& pl, const std::string& source, DType t, Realization& r, int64_t buffer_size);

  // shared_copy.cpp: synchronous copies into shared memory or registers
  Stmt unit_copy(const StagedCopy& cp, int64_t lanes, const std::vector<Expr>& a,
                 const std::function<Stmt(const std::vector<Expr>&, const Expr&)>& store);
  Stmt shared_store(const Placement& pl, const StagedCopy& cp, const std::vector<Expr>& x);
  void place_shared_copy(Placement& pl, const StagedCopy& cp, int64_t lanes);
  void place_register_copy(Placement& pl, const StagedCopy& cp);

  // register_tail.cpp: cache_read registers
  void place_register_tail(Placement& pl, StagedCopy& cp, int64_t lanes);

  // async_copy.cpp: pipeline engine cp.async
  void place_async_copy(Placement& pl, StagedCopy& cp);
  void issue_async_pipeline(Placement& pl);

  // bulk_copy.cpp: pipeline engine bulk
  void place_bulk_copy(Placement& pl, StagedCopy& cp);
  void issue_bulk_pipeline(Placement& pl);

  // tensor_copy.cpp: pipeline engine tensor (its issue and waits: issue_bulk_pipeline)
  void place_tensor_copy(Placement& pl, StagedCopy& cp);

  // reduction.cpp: accumulators, cross_thread_reduce (warp, block, cluster)
  Stmt emit_reduction(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial);

  // scan.cpp: cumsum / cumprod, serial or across the block's threads (cross_thread_scan)
  int first_scan_loop(const Ctx& c) const;
  Stmt emit_scan(Ctx& c, int p0, const Env& env, const Env& caches);

  // epilogue.cpp: fuse_epilogue; a stage's final values stored, through its folded consumer's expression
  Stmt store_result(const Ctx& c, const std::vector<Expr>& idx, const Expr& value);
  Stmt store_global(const FuncDef& y, const std::vector<Expr>& idx, const Expr& value);

  // sum_with_variance.cpp: a variance's store followed by that of the sum paired with it
  Stmt with_sum_store(const Ctx& c, const std::vector<Expr>& idx, Stmt write, const Expr& sum);

  // output_tile.cpp: cache_write scope shared
  Stmt emit_output_tile(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial);

  // tensor_core_tile.cpp: the tile that tensor_core takes (mma.sync and wgmma)
  TensorCoreTile tensor_core_tile(const Ctx& c) const;
  Stmt over_warps(const TensorCoreTile& T, Stmt leaf);
  TileOperand tile_operand(const Ctx& c, const Expr& factor, const std::map<std::string, Expr>& at,
                           const std::string& skip, const std::string& own, const std::string& kv, const Env& env,
                           const Env& caches, bool round_operands);

  // mma_sync.cpp: tensor_core m16n8k8 / m16n8k16
  Stmt emit_tensor_core(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial);

  // wgmma.cpp: tensor_core m64nNk8 and m64nNk16
  static bool uses_wgmma(const Ctx& c) {
    return c.s.tensor_core_shape == "m64nNk8" || c.s.tensor_core_shape == "m64nNk16";
  }
  int wgmma_groups_in_flight(const Ctx& c) const;
  Stmt emit_wgmma(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial);
  std::pair<std::string, Expr> wgmma_b_operand(const Ctx& c, const TensorCoreTile& T, const Env& caches);
  Stmt a_fragment_ldmatrix(const Ctx& c, const TensorCoreTile& T, const Env& env, const Env& caches, int64_t mt,
                           int64_t kt, const std::string& frag, int64_t at);
  Stmt split_wgmma_b_tile(const std::string& b, const Expr& start, int64_t elements, const std::string& hi,
                          const std::string& lo, const Expr& slot, const Expr& tid, int64_t threads);
};

}  // namespace cusched::lowering
