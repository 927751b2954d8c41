#pragma once
// The state a schedule builds up: for every stage, its loops (after splits, fuses
// and reorders), their GPU bindings and kinds, where the stage is computed, and
// its memory, reduction, pipelining and precision choices. Lowering reads it.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dsl/mem_scope.h"
#include "dsl/pipeline.h"
#include "dsl/precision.h"

namespace cusched {

// ClusterX is the block's rank within its thread-block cluster along x (clusters of
// consecutive blocks on x; a kernel that uses it has exactly one cluster on x).
enum class GpuAxis { None, BlockX, BlockY, BlockZ, ThreadX, ThreadY, ThreadZ, ClusterX };
enum class LoopKind { Serial, Unrolled, Vectorized };
// The engine that a software pipeline's copies run on: cp.async (per-thread copies of 4 or
// 16 bytes), the Hopper bulk copy engine (one copy per row) or its tensor memory
// accelerator (one box per copy, described by a tensor map).
enum class CopyEngine { CpAsync, Bulk, Tensor };
const std::vector<std::string>& copy_engine_names();  // "cp.async", "bulk", "tensor", in enum order
std::string copy_engine_name(CopyEngine e);
std::optional<CopyEngine> copy_engine_from_name(const std::string& s);

std::string gpu_axis_name(GpuAxis a);  // "blockIdx.x", ...
std::optional<GpuAxis> gpu_axis_from_name(const std::string& s);
bool is_block_axis(GpuAxis a);
bool is_thread_axis(GpuAxis a);
// The largest portable thread-block cluster (blocks per cluster).
// Blocks per thread-block cluster: 8 is the portable limit; H100 and H200 run clusters of
// up to 16 (the runtime allows the non-portable size for kernels that ask for more than 8).
constexpr int64_t kMaxClusterBlocks = 16;

struct LoopInfo {
  std::string name;
  int64_t extent = 1;
  bool reduction = false;
  GpuAxis axis = GpuAxis::None;
  LoopKind kind = LoopKind::Serial;
};

// How loops were derived from the stage's variables, in application order.
struct LoopRelation {
  enum Kind { Split, Fuse, Reverse } kind = Split;
  std::string a, b, c;  // split: a -> (b outer, c inner); fuse: (a outer, b inner) -> c; reverse: a -> b
  int64_t factor = 1;   // split: the inner extent; fuse: the extent of the inner loop b; reverse: the extent
};

enum class ComputeLocation { Root, Inline, At };

struct CacheRead {
  std::string source;                 // tensor or stage read by this stage
  std::string name;                   // name of the staged copy
  MemScope scope = MemScope::Shared;  // Shared or Register
  std::string at_loop;                // loop of this stage at which the copy is made
  int pad = 0;                        // elements added to the innermost dimension
  bool swizzle = false;               // XOR swizzle of 16-byte chunks instead of padding
  bool share = false;                 // also read by the producers computed at at_loop
  int registers = 0;                  // a shared copy's last copy steps kept in the copying threads' registers
  int innermost = -1;                 // the source dimension laid out innermost in the copy; -1: the source's order
  // Whether `innermost` moves a dimension other than the last of the source's `rank`.
  bool transposes(size_t rank) const { return innermost >= 0 && static_cast<size_t>(innermost) + 1 != rank; }
};

// An L2 eviction priority for a kernel's global loads of one input (l2_hint).
struct L2Hint {
  std::string policy;     // "evict_last", "evict_first" or "evict_normal"
  int64_t percent = 100;  // the share of the input's cache lines the priority applies to
};

// Which step (its index in the schedule) last set each part of a stage's schedule that
// the whole-schedule legality rules read, so that an error names the step that caused
// it; -1 where no step has set it (the stage's initial schedule).
struct StageProvenance {
  int order = -1;     // the loops and their order: split, tile, fuse, reorder, reverse, rfactor
  int location = -1;  // compute_at, compute_inline, compute_root, fuse_epilogue, sum_with_variance
  int cache_write = -1;
  int cross_thread = -1;  // cross_thread_reduce, any kind; cross_thread_scan
  int pipeline = -1;
  int tensor_core = -1;
  int precision = -1;  // the operand precision and math: precision, tensor_core
  int launch_bounds = -1;
  int raster = -1;  // block_raster
  int l2_hint = -1;
  std::map<std::string, int> binding;     // loop -> the step that last bound it (bind, cross_thread_reduce)
  std::map<std::string, int> loop_kind;   // loop -> the step that last unrolled or vectorized it
  std::map<std::string, int> cache_read;  // source -> the step that staged its copy
  int last = -1;                          // the last step that changed anything of the stage
  int last_but_arithmetic = -1;           // the same, leaving out steps that only set precision and math

  int binding_of(const std::string& loop) const;  // -1 when never bound
  int cache_read_of(const std::string& source) const;
};

struct StageSchedule {
  std::string stage;
  std::vector<std::string> order;  // current loops, outermost first
  std::map<std::string, LoopInfo> loops;
  std::vector<LoopRelation> relations;
  std::set<std::string> used_names;  // every loop name this stage has had
  ComputeLocation location = ComputeLocation::Root;
  std::string at_stage, at_loop;
  // fuse_epilogue: the reduction into whose final store this pointwise stage is folded
  // (it has no kernel or loops of its own).
  std::string epilogue_of;
  // sum_with_variance: the variance reduction whose kernel also stores this sum stage
  // (mean x count from its Welford accumulators); the sum has no kernel of its own.
  std::string with_variance;
  std::vector<CacheRead> cache_reads;
  std::optional<MemScope> cache_write_scope;  // none (default register accumulation), Register, Shared
  std::string cross_thread_loop;              // reduction loop combined across threads
  std::string cross_thread_kind;              // "warp" or "block"
  std::string cross_cluster_loop;             // reduction loop combined across the blocks of a cluster
  std::string scan_thread_loop;  // a scan's loop scanned across the threads of the block (cross_thread_scan)
  std::string pipeline_loop;
  int pipeline_depth = 0;
  CopyEngine pipeline_engine = CopyEngine::CpAsync;
  std::string tensor_core_shape;         // "", "m16n8k8", "m16n8k16"
  Precision precision = Precision::f32;  // operand precision: f32, tf32, 3xtf32, bf16, f16
  std::string math = "exact";            // "fast": f32 exp, log and division as approximate intrinsics
  int launch_max_threads = 0, launch_min_blocks = 0;
  int raster_group = 0;                    // block_raster: tiles in groups of this many along blockIdx.x (0: none)
  std::map<std::string, L2Hint> l2_hints;  // input -> priority of the stage's kernel's loads of it
  StageProvenance provenance;              // which step set the fields above

  const LoopInfo* find_loop(const std::string& name) const;
  int position(const std::string& loop) const;  // index in order, -1 if absent
  int loops_on(GpuAxis axis) const;             // current loops bound to `axis`
};

struct ScheduleContext {
  Pipeline pipeline;
  SizeBindings sizes;
  double atol = 1e-2, rtol = 1e-2;  // the problem's tolerance; bounds the legal precision
};

struct ScheduleState {
  ScheduleContext ctx;
  std::vector<std::shared_ptr<const FuncDef>> stages;  // the pipeline's, plus stages made by rfactor
  std::map<std::string, StageSchedule> schedules;

  explicit ScheduleState(ScheduleContext c);
  const FuncDef* stage_def(const std::string& name) const;
  // The number of dimensions of an input or stage (0 when neither has that name).
  size_t rank_of(const std::string& name) const;
  StageSchedule& stage(const std::string& name);  // fails with unknown-stage
  const StageSchedule& stage(const std::string& name) const;
  // Resolves a loop name to its stage: `stage_hint` when given, else the only
  // stage that has such a loop (fails with unknown-loop or ambiguous-loop).
  std::string stage_of_loop(const std::string& loop, const std::string& stage_hint) const;
  bool is_output(const std::string& stage) const { return ctx.pipeline.is_output(stage); }
  // The stages that read `name` where they are computed: its direct readers, with an inlined
  // reader replaced by the stages that read that one (its expression is substituted there).
  std::vector<std::string> consumers_of(const std::string& name) const;
  // The stage folded into `reduction`'s final store (fuse_epilogue), "" when none.
  std::string folded_epilogue(const std::string& reduction) const;
  // The sum stage stored by `variance`'s kernel (sum_with_variance), "" when none.
  std::string sum_with(const std::string& variance) const;
  // Initial loops of a stage: its pure variables then its reduction variables.
  static StageSchedule initial_schedule(const FuncDef& f, const SizeBindings& sizes);
  // Records step `step` as the setter of every field that differs between `before`
  // (the state before the step) and this state.
  void record_provenance(const ScheduleState& before, int step);
};

}  // namespace cusched
