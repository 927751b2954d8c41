#include "search/cost_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "codegen/cuda_vector_access.h"
#include "codegen/linear_form.h"
#include "codegen/mma_layout.h"
#include "codegen/shared_subexpressions.h"
#include "codegen/wgmma_layout.h"
#include "dsl/expr_substitute.h"
#include "runtime/performance_floor.h"
#include "search/operation_weights.h"

namespace cusched::search {
namespace {

constexpr double kBandwidth = 4.2e12;                        // bytes/s, measured copy bandwidth
constexpr double kL2Bandwidth = 2.5 * kBandwidth;            // bytes/s, assumed for reads that L2 serves
const double kF32Rate = runtime::flop_rate(Precision::f32);  // FLOP/s on CUDA cores
constexpr double kLaunchMs = 0.003;
// Seconds a multiprocessor takes to retire one block and start the next, however little
// the block does: a grid of many small blocks runs at this rate.
constexpr double kBlockDispatchSeconds = 150e-9;
// Bytes per second the multiprocessors' shared memory delivers to loads: 128 bytes (one
// wavefront of a warp's load) per multiprocessor per cycle at 1.755 GHz.
constexpr double kSharedBandwidth = 128.0 * kMultiprocessors * 1.755e9;
// Bytes of memory requests in flight per multiprocessor that reach the memory's rate:
// every resident thread with one 4-byte load outstanding.
constexpr double kRequestBytesPerMultiprocessor = kThreadsPerMultiprocessor * 4.0;

// An integer index with its loop variables bound (unbound ones are 0); nullopt when
// it holds something other than integer arithmetic (a load, a float).
std::optional<int64_t> eval_index(const Expr& e, const std::map<std::string, int64_t>& vars) {
  if (!e.defined()) return std::nullopt;
  const ExprNode& n = *e;
  auto arg = [&](int i) { return eval_index(n.args[i], vars); };
  switch (n.op) {
    case ExprOp::IntImm:
      return n.ival;
    case ExprOp::Var: {
      auto it = vars.find(n.name);
      return it == vars.end() ? 0 : it->second;
    }
    case ExprOp::Cast:
      return dtype_is_float(e.type()) ? std::nullopt : arg(0);
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::Div:
    case ExprOp::Mod:
    case ExprOp::Min:
    case ExprOp::Max:
    case ExprOp::BitXor: {
      auto a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      switch (n.op) {
        case ExprOp::Add:
          return *a + *b;
        case ExprOp::Sub:
          return *a - *b;
        case ExprOp::Mul:
          return *a * *b;
        case ExprOp::Div:
          return *b == 0 ? std::nullopt : std::optional<int64_t>(*a / *b);
        case ExprOp::Mod:
          return *b == 0 ? std::nullopt : std::optional<int64_t>(*a % *b);
        case ExprOp::Min:
          return std::min(*a, *b);
        case ExprOp::BitXor:
          return *a ^ *b;
        default:
          return std::max(*a, *b);
      }
    }
    case ExprOp::BoolImm:
      return n.ival;
    case ExprOp::EQ:
    case ExprOp::NE:
    case ExprOp::LT:
    case ExprOp::LE:
    case ExprOp::GT:
    case ExprOp::GE:
    case ExprOp::And:
    case ExprOp::Or: {
      auto a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      switch (n.op) {
        case ExprOp::EQ:
          return *a == *b;
        case ExprOp::NE:
          return *a != *b;
        case ExprOp::LT:
          return *a < *b;
        case ExprOp::LE:
          return *a <= *b;
        case ExprOp::GT:
          return *a > *b;
        case ExprOp::GE:
          return *a >= *b;
        case ExprOp::And:
          return *a && *b;
        default:
          return *a || *b;
      }
    }
    case ExprOp::Not: {
      auto a = arg(0);
      return a ? std::optional<int64_t>(!*a) : std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// `e` in each lane of a warp (tx = 0..31 within tx_extent, and each value of the vector
// lane), the other variables 0; nullopt where a lane's value cannot be told.
std::optional<std::vector<int64_t>> warp_values(const Expr& e, const std::string& tx_var, int64_t tx_extent,
                                                const std::string& vec_var, int64_t vec_extent) {
  std::vector<int64_t> values;
  for (int64_t t = 0; t < std::min<int64_t>(32, std::max<int64_t>(tx_extent, 1)); ++t)
    for (int64_t v = 0; v < std::max<int64_t>(vec_extent, 1); ++v) {
      std::map<std::string, int64_t> vars;
      if (!tx_var.empty()) vars[tx_var] = t;
      if (!vec_var.empty()) vars[vec_var] = v;
      auto x = eval_index(e, vars);
      if (!x) return std::nullopt;
      values.push_back(*x);
    }
  return values;
}

// Whether `cond` takes one value in every lane of a warp: false where it differs between
// lanes or cannot be told.
bool uniform_across_warp(const Expr& cond, const std::string& tx_var, int64_t tx_extent, const std::string& vec_var,
                         int64_t vec_extent) {
  auto values = warp_values(cond, tx_var, tx_extent, vec_var, vec_extent);
  return values && std::adjacent_find(values->begin(), values->end(), std::not_equal_to<>()) == values->end();
}

// Bytes moved per element when the lanes of a warp access `index`: distinct 32-byte
// sectors times 32 over the elements.
std::optional<double> sampled_cost(const Expr& index, const std::string& tx_var, int64_t tx_extent,
                                   const std::string& vec_var, int64_t vec_extent, int elem) {
  auto elements = warp_values(index, tx_var, tx_extent, vec_var, vec_extent);
  if (!elements) return std::nullopt;
  std::set<int64_t> sectors;
  for (int64_t a : *elements) sectors.insert(a * elem / 32);
  return elements->empty() ? 32.0 : 32.0 * static_cast<double>(sectors.size()) / static_cast<double>(elements->size());
}

bool contains_barrier(const Stmt& s) {
  if (!s) return false;
  if (s->kind == StmtKind::Barrier) return true;
  for (const auto& c : s->body)
    if (contains_barrier(c)) return true;
  return false;
}

struct Walker {
  const LoweredProgram* program = nullptr;
  bool tensor_cores = false;  // the kernel issues Mma or Wgmma
  std::set<std::string> globals;
  double bytes = 0, flops = 0;
  std::set<std::string> seen_loads;  // global loads of the current statement
  // The current statement's shared subexpressions (computed once, as the emitter writes
  // them): each occurrence's group, and the groups counted so far.
  std::map<const ExprNode*, size_t> shared_group;
  std::set<size_t> shared_counted;
  int64_t tx_extent = 32, vec_extent = 1;  // extents of the current lane loops
  int64_t block_threads = 1;               // threads per block of the kernel
  int thread_loops = 0;                    // enclosing loops bound to a thread axis
  std::set<GpuAxis> bound_axes;            // the axes enclosing loops bind
  int64_t copy_groups_in_flight = 0;       // the most cp.async groups a wait leaves in flight, plus the one awaited
  double async_bytes = 0;                  // bytes the kernel's cp.async copies move
  double async_groups = 0;                 // cp.async groups its blocks commit
  double mbarriers = 0;                    // mbarriers a block initialises
  bool bulk_copies = false;                // the kernel issues bulk or tensor copies (their mbarriers are its stages)
  // Bytes a thread's global loads have outstanding at once: the loads of one statement
  // (not a copy staged per step of a loop with a barrier), each repeated by the enclosing unrolled loops its index
  // moves with (independent loads the compiler issues together) and as wide as its vector;
  // the most of any such statement.
  double statement_load_bytes = 0, load_bytes_in_flight = 0;
  bool counting_in_flight = false;  // the current statement is not a copy staged per loop step
  int staging_loops = 0;            // enclosing serial loops whose bodies hold a barrier
  // Enclosing loops that no hardware index binds, outermost first (the unrolled ones among
  // them: unroll and vectorize take only unbound loops).
  struct StepLoop {
    std::string var;
    int64_t extent;
    bool unrolled;
  };
  std::vector<StepLoop> step_loops;
  std::set<std::string> seen_index_ops;          // the kernel's integer divisions and moduli counted so far
  double index_flops = 0;                        // their instructions, in the model's FLOP
  std::set<std::string> shared;                  // the kernel's shared-memory arrays
  double shared_bytes = 0;                       // their bytes per block
  double shared_load_bytes = 0;                  // bytes its threads load from them, over the whole grid
  std::map<std::string, EmittedBuffer> buffers;  // the kernel's parameters and allocations, for vector plans

  // Statements outside thread loops run in every thread of the block; those whose
  // index or value depends on the linear thread index (`tid`: the block's cooperative
  // copies) do different work in each, so they count once per thread, with `tid` as the
  // lane that decides coalescing.
  bool per_thread_copy(const StmtNode& s) const {
    return thread_loops == 0 && (mentions_var(s.index, "tid") || mentions_var(s.value, "tid"));
  }

  // Whether the emitter writes the vectorized loop `loop` as vector accesses.
  bool vectorizes(const StmtNode& loop) const {
    return plan_vector_access(loop,
                              [this](const std::string& name) -> const EmittedBuffer* {
                                auto it = buffers.find(name);
                                return it == buffers.end() ? nullptr : &it->second;
                              })
        .has_value();
  }

  // The integer divisions and moduli in `e` (indices, bounds checks) by constants that are
  // not powers of 2, each distinct one counted once (the compiler computes an expression
  // once) at the loops it moves with.
  void index_ops(const Expr& e, double mult) {
    if (!e.defined()) return;
    if ((e->op == ExprOp::Div || e->op == ExprOp::Mod) && !dtype_is_float(e.type())) {
      int64_t d = 0;
      const bool shift = is_const_int(e->args[1], &d) && d > 0 && (d & (d - 1)) == 0;
      if (!shift && seen_index_ops.insert(to_string(e)).second) {
        // Computed in the innermost serial loop it moves with, once per iteration of that
        // loop and the loops around it; an unrolled loop inside that one makes a copy of it
        // only where it moves with that loop (the compiler hoists the rest).
        size_t depth = 0;
        for (size_t i = 0; i < step_loops.size(); ++i)
          if (!step_loops[i].unrolled && mentions_var(e, step_loops[i].var)) depth = i + 1;
        double m = mult;
        for (size_t i = depth; i < step_loops.size(); ++i)
          if (!step_loops[i].unrolled || !mentions_var(e, step_loops[i].var))
            m /= static_cast<double>(step_loops[i].extent);
        index_flops += m * index_operation_weight(*e);
      }
    }
    for (const auto& a : e->args) index_ops(a, mult);
  }

  // A statement outside the thread loops runs in every thread of the block.
  double per_thread(double mult) const { return thread_loops == 0 ? mult * static_cast<double>(block_threads) : mult; }

  void expr(const Expr& e, double mult, const std::string& tx_var, const std::string& vec_var) {
    if (!e.defined()) return;
    if (auto g = shared_group.find(e.get()); g != shared_group.end() && !shared_counted.insert(g->second).second)
      return;
    if (e->op == ExprOp::Select) {
      select(e, mult, tx_var, vec_var);
      return;
    }
    // The same element loaded twice in one statement is one load after the compiler's CSE.
    if (e->op == ExprOp::Load && globals.count(e->name) &&
        seen_loads.insert(e->name + "[" + to_string(e->args[0]) + "]").second)
      access(e->args[0], mult, tx_var, vec_var, dtype_bytes(e.type()), true);
    if (e->op == ExprOp::Load && shared.count(e->name) &&
        seen_loads.insert(e->name + "[" + to_string(e->args[0]) + "]").second) {
      // An element an unrolled loop does not move is loaded once into a register for all
      // of that loop's copies (a register tile's operand, reused across the other axis).
      double reuse = 1;
      for (const auto& l : step_loops)
        if (l.unrolled && !mentions_var(e->args[0], l.var)) reuse *= static_cast<double>(l.extent);
      shared_load_bytes += mult / reuse * std::max(4, dtype_bytes(e.type()));
    }
    if (dtype_is_float(e.type()) && e->op != ExprOp::Load && e->op != ExprOp::FloatImm && e->op != ExprOp::Cast)
      flops += mult * float_operation_weight(*e);
    for (const auto& a : e->args) expr(a, mult, tx_var, vec_var);
  }

  // A select runs one of its branches in each thread (a load in the other is not issued):
  // where its condition is the same in every lane of a warp, the warp runs one branch, the
  // costlier one counted; where lanes differ (an interleave by the parity of the lane's
  // index, a bounds check), each branch runs in its part of the warp, and the sectors a
  // branch's accesses touch are at most those of all lanes taking it: both are counted.
  void select(const Expr& e, double mult, const std::string& tx_var, const std::string& vec_var) {
    expr(e->args[0], mult, tx_var, vec_var);
    const bool uniform = uniform_across_warp(e->args[0], tx_var, tx_extent, vec_var, vec_extent);
    const double bytes_before = bytes, flops_before = flops;
    const std::set<std::string> seen_before = seen_loads;
    double branch_bytes[2] = {0, 0}, branch_flops[2] = {0, 0};
    std::set<std::string> seen_after = seen_loads;
    for (int b : {0, 1}) {
      bytes = bytes_before;
      flops = flops_before;
      seen_loads = seen_before;
      expr(e->args[1 + b], mult, tx_var, vec_var);
      branch_bytes[b] = bytes - bytes_before;
      branch_flops[b] = flops - flops_before;
      seen_after.insert(seen_loads.begin(), seen_loads.end());
    }
    bytes = bytes_before + (uniform ? std::max(branch_bytes[0], branch_bytes[1]) : branch_bytes[0] + branch_bytes[1]);
    flops = flops_before + std::max(branch_flops[0], branch_flops[1]) +
            (dtype_is_float(e.type()) ? mult : 0);  // the selection itself
    seen_loads = seen_after;
  }

  void access(const Expr& index, double mult, const std::string& tx_var, const std::string& vec_var, int elem,
              bool is_load) {
    // Opaque terms (divisions, moduli) are fine as long as they do not involve the
    // thread or vector lane, whose coefficients decide coalescing.
    auto a = linear_form(index, true);
    bool lane_in_opaque_term = false;
    if (a)
      for (const auto& [key, term] : a->atoms)
        lane_in_opaque_term |=
            (!tx_var.empty() && mentions_var(term, tx_var)) || (!vec_var.empty() && mentions_var(term, vec_var));
    double cost = 32;  // one sector per access when uncoalesced or unknown
    if (lane_in_opaque_term) {
      // A lane inside a division or modulus (a fused loop split again): count the
      // sectors that one warp's accesses touch.
      if (auto c = sampled_cost(index, tx_var, tx_extent, vec_var, vec_extent, elem)) cost = *c;
    } else if (a) {
      auto coeff = [&](const std::string& v) {
        auto it = a->coeff.find(v);
        return it == a->coeff.end() ? 0 : it->second;
      };
      int64_t ct = tx_var.empty() ? 0 : coeff(tx_var);
      int64_t cv = vec_var.empty() ? 0 : coeff(vec_var);
      if (!vec_var.empty() && std::abs(cv) == 1)
        cost = elem;  // contiguous vector (a reversed one, such as a reverse scan's, too)
      else if (ct == 0)
        cost = tx_var.empty() ? elem : elem / 32.0;  // broadcast across the warp
      else if (std::abs(ct) == 1)
        cost = elem;
      else
        cost = std::min<double>(32, elem * std::abs(ct));
    }
    // A thread that walks adjacent elements over an enclosing unrolled loop (a register
    // copy of 4 adjacent columns, element by element) reads sectors that its warp's
    // first copy brought into L1: the warp's footprint over its lanes and the innermost
    // such loop decides the bytes. Stores do not stay in L1: each one writes its sectors.
    if (cost > elem && is_load)
      for (auto it = step_loops.rbegin(); it != step_loops.rend(); ++it)
        if (it->unrolled && mentions_var(index, it->var)) {
          if (auto c = sampled_cost(index, tx_var, tx_extent, it->var, it->extent, elem)) cost = std::min(cost, *c);
          break;
        }
    // A load that does not depend on an enclosing unrolled loop is the same load in
    // each unrolled copy, which the compiler reads once.
    if (is_load) {
      double copies = (!vec_var.empty() && mentions_var(index, vec_var)) ? static_cast<double>(vec_extent) : 1.0;
      for (const auto& l : step_loops) {
        if (!l.unrolled) continue;
        if (!mentions_var(index, l.var))
          mult /= static_cast<double>(l.extent);
        else
          copies *= static_cast<double>(l.extent);
      }
      if (counting_in_flight) {
        statement_load_bytes += copies * elem;
        load_bytes_in_flight = std::max(load_bytes_in_flight, statement_load_bytes);
      }
    }
    bytes += mult * cost;
  }

  void stmt(const Stmt& s, double mult, std::string tx_var, std::string vec_var) {
    switch (s->kind) {
      case StmtKind::For: {
        int64_t e = 1;
        is_const_int(s->extent, &e);
        // A loop bound to an axis that an enclosing loop binds already runs the one
        // iteration of that hardware index (a statistic's cluster loop inside the output's).
        const bool rebound = s->axis != GpuAxis::None && bound_axes.count(s->axis) > 0;
        if (rebound) e = 1;
        const bool binds = s->axis != GpuAxis::None && !rebound;
        if (binds) bound_axes.insert(s->axis);
        const int64_t outer_tx_extent = tx_extent, outer_vec_extent = vec_extent;
        if (s->axis == GpuAxis::ThreadX) {
          tx_var = s->var;
          tx_extent = e;
        }
        const bool thread_loop = is_thread_axis(s->axis);
        thread_loops += thread_loop;
        // A vectorized loop whose accesses the emitter cannot prove aligned and contiguous
        // (rows that are not whole float4s) is written as unrolled scalar code.
        const bool vector = s->loop_kind == LoopKind::Vectorized && vectorizes(*s);
        if (vector) {
          vec_var = s->var;
          vec_extent = e;
        }
        const bool unrolled_loop =
            s->loop_kind == LoopKind::Unrolled || (s->loop_kind == LoopKind::Vectorized && !vector);
        const bool step_loop = s->axis == GpuAxis::None && !vector;
        if (step_loop) step_loops.push_back({s->var, e, unrolled_loop});
        const bool staging =
            s->axis == GpuAxis::None && s->loop_kind == LoopKind::Serial && contains_barrier(s->body[0]);
        staging_loops += staging;
        stmt(s->body[0], mult * static_cast<double>(e), tx_var, vec_var);
        staging_loops -= staging;
        if (step_loop) step_loops.pop_back();
        if (binds) bound_axes.erase(s->axis);
        thread_loops -= thread_loop;
        tx_extent = outer_tx_extent;
        vec_extent = outer_vec_extent;
        return;
      }
      case StmtKind::Store: {
        seen_loads.clear();
        statement_load_bytes = 0;
        const bool copy = per_thread_copy(*s);
        // A copy into shared memory inside a serial loop with a barrier (a tile staged per
        // step) waits at that barrier: its loads do not overlap the computation, so they are
        // not counted in flight; a copy made once (a row held for the block's work) is.
        counting_in_flight = !((copy || shared.count(s->buffer)) && staging_loops > 0);
        const double m = copy ? mult * static_cast<double>(block_threads) : mult;
        const std::string lane = copy ? "tid" : tx_var;
        const int64_t outer_tx_extent = tx_extent;
        if (copy) tx_extent = std::min<int64_t>(block_threads, 32);
        shared_group.clear();
        shared_counted.clear();
        const auto shared_values = shared_subexpressions(s->value);
        for (size_t g = 0; g < shared_values.size(); ++g)
          for (const ExprNode* n : shared_values[g].occurrences) shared_group[n] = g;
        expr(s->value, m, lane, vec_var);
        index_ops(s->value, per_thread(mult));
        index_ops(s->index, per_thread(mult));
        if (globals.count(s->buffer)) access(s->index, m, lane, vec_var, 4, false);
        tx_extent = outer_tx_extent;
        return;
      }
      case StmtKind::If:
        expr(s->cond, mult, tx_var, vec_var);
        index_ops(s->cond, per_thread(mult));
        break;
      case StmtKind::Allocate:
        buffers[s->buffer] = EmittedBuffer{s->dtype, s->scope};
        if (s->scope == MemScope::Shared) {
          shared.insert(s->buffer);
          shared_bytes += static_cast<double>(s->size * dtype_bytes(s->dtype));
        }
        break;
      case StmtKind::AsyncWait:
        copy_groups_in_flight = std::max<int64_t>(copy_groups_in_flight, s->width + 1);
        return;
      case StmtKind::AsyncCommit:
        // Every thread commits its group; a commit inside a thread loop counts once per block.
        async_groups += thread_loops == 0 ? mult : mult / static_cast<double>(std::max<int64_t>(1, block_threads));
        return;
      case StmtKind::MbarrierInit:
        if (thread_loops == 0) mbarriers += mult;
        return;
      case StmtKind::AsyncCopy: {
        // The load names the first element; the copy moves copy_bytes of contiguous data.
        const double copies = per_thread_copy(*s) ? mult * static_cast<double>(block_threads) : mult;
        const double moved = copies * static_cast<double>(s->copy_bytes);
        index_ops(s->index, per_thread(mult));
        index_ops(s->value, per_thread(mult));
        bytes += moved;
        async_bytes += moved;
        return;
      }
      case StmtKind::BulkCopy: {
        bulk_copies = true;
        int64_t e = 128;  // a row of a tail tile has a computed length: a typical row's bytes
        is_const_int(s->extent, &e);
        bytes += mult * static_cast<double>(e);
        return;
      }
      case StmtKind::TensorCopy: {
        bulk_copies = true;
        const BufferSpec* src = program ? program->find_buffer(s->source) : nullptr;
        double box = src ? static_cast<double>(dtype_bytes(src->dtype)) : 4.0;
        for (auto e : s->box) box *= static_cast<double>(e);
        bytes += mult * box;
        return;
      }
      case StmtKind::Mma: {
        tensor_cores = true;
        // Each lane's share of the warp's 2*m*n*k, in CUDA-core-equivalent FLOP (the
        // precision's rate relative to the f32 rate; 3xtf32's rate counts its three products).
        const MmaLayout& l = mma_layout(s->mma_shape);
        for (const auto& o : s->operands) {
          expr(o, mult, tx_var, vec_var);
          index_ops(o, mult);
        }
        flops += mult * 2.0 * l.m * l.n * l.k / 32.0 * kF32Rate / runtime::flop_rate(s->mma_precision);
        return;
      }
      case StmtKind::Wgmma:
        tensor_cores = true;
        // Each thread's share of the warpgroup's 2*64*N*8 (B is read by the tensor cores).
        for (const auto& o : s->operands) expr(o, mult, tx_var, vec_var);
        flops += mult * 2.0 * kWgmmaM * static_cast<double>(s->width) * kWgmmaK / kWgmmaThreads * kF32Rate /
                 runtime::flop_rate(s->mma_precision);
        return;
      default:
        break;
    }
    for (const auto& c : s->body) stmt(c, mult, tx_var, vec_var);
  }
};

}  // namespace

int64_t resident_blocks(int64_t threads, int registers, int64_t smem_bytes) {
  if (threads <= 0) return 0;
  const int64_t warps = (threads + 31) / 32;
  const int64_t regs_per_warp = (static_cast<int64_t>(std::max(registers, 1)) * 32 + 255) / 256 * 256;
  const int64_t by_regs = 65536 / (regs_per_warp * warps);
  const int64_t by_smem = 233472 / (smem_bytes + 1024);
  return std::max<int64_t>(0, std::min({64 / warps, by_regs, by_smem, int64_t{32}}));
}

CostBreakdown estimate_cost(const LoweredProgram& program) {
  CostBreakdown c;
  double occ_sum = 0;
  for (const auto& k : program.kernels) {
    Walker w;
    w.program = &program;
    for (const auto& p : k.params) {
      w.globals.insert(p);
      if (const BufferSpec* b = program.find_buffer(p)) w.buffers[p] = EmittedBuffer{b->dtype, MemScope::Global};
    }
    w.block_threads = k.block[0] * k.block[1] * k.block[2];
    w.stmt(k.body, 1.0, "", "");
    const double blocks = static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]);
    const double block = static_cast<double>(k.block[0] * k.block[1] * k.block[2]);
    // Blocks resident per multiprocessor by its thread slots and the block's shared arrays
    // (registers are not known before ptxas); at least one.
    const double per_sm = static_cast<double>(
        std::max<int64_t>(1, resident_blocks(static_cast<int64_t>(block), 0, static_cast<int64_t>(w.shared_bytes))));
    const double resident = std::min(blocks, per_sm * kMultiprocessors);
    const double occupancy = std::min(1.0, resident * block / kMachineThreads);
    const double used = std::max(0.02, occupancy);
    // Memory requests in flight decide the bandwidth a kernel reaches. A thread's plain
    // loads keep the loads of one statement in flight (load_bytes_in_flight: more where
    // unrolled loops or vectors make them independent), so the resident threads' share of
    // the machine times those bytes sets the rate (kRequestBytesPerMultiprocessor per
    // multiprocessor reach it). A software pipeline keeps a block's copies of every stage that a wait leaves in flight
    // outstanding (cp.async groups; the mbarrier stages of bulk copies, kilobytes each),
    // which reaches the rate of the multiprocessors its blocks occupy from a block or two.
    // Small blocks issue too few requests.
    const double sm_share = std::min(1.0, blocks / static_cast<double>(kMultiprocessors));
    const double plain_bytes = std::max(4.0, w.load_bytes_in_flight);
    double in_flight_share =
        std::min(1.0, used * kThreadsPerMultiprocessor * plain_bytes / kRequestBytesPerMultiprocessor);
    if (w.async_groups > 0 && w.copy_groups_in_flight > 0)
      in_flight_share =
          std::max(in_flight_share, w.async_bytes / w.async_groups * static_cast<double>(w.copy_groups_in_flight) /
                                        kRequestBytesPerMultiprocessor);
    if (w.bulk_copies && w.mbarriers > 1) in_flight_share = 1;
    const double efficiency = std::min(std::max(used, sm_share), in_flight_share) * (block < 64 ? 0.5 : 1.0);
    // Tensor-core instructions keep their pipe busy from a few warps per multiprocessor,
    // so a tensor-core kernel computes at the rate of the multiprocessors it occupies;
    // CUDA-core arithmetic needs the resident threads, up to a quarter of the slots (16
    // warps per multiprocessor, 4 per scheduler), assumed to keep its pipes busy.
    const double compute_efficiency =
        w.tensor_cores ? std::max(used, std::min(sm_share, used * 8)) : std::min(1.0, used * 4);
    // A tensor-core tile's blocks re-read the operand panels that the blocks running beside
    // them read too: beyond the bytes of the kernel's buffers, its reads come from L2.
    double unique = 0;
    for (const auto& p : k.params)
      if (const BufferSpec* b = program.find_buffer(p)) unique += static_cast<double>(b->bytes());
    const double dram = w.tensor_cores ? std::min(w.bytes, unique) : w.bytes;
    const double memory_s = dram / (kBandwidth * efficiency) + (w.bytes - dram) / (kL2Bandwidth * efficiency);
    // Index arithmetic runs on the CUDA cores beside a tensor-core kernel's products.
    const double compute_s =
        w.flops / (kF32Rate * compute_efficiency) + w.index_flops / (kF32Rate * std::min(1.0, used * 4));
    const double dispatch_s = std::ceil(blocks / kMultiprocessors) * kBlockDispatchSeconds;
    const double shared_s = w.shared_load_bytes / (kSharedBandwidth * sm_share);
    double ms = std::max({memory_s, compute_s, dispatch_s, shared_s}) * 1e3 + kLaunchMs;
    c.per_kernel.push_back({k.name, ms, w.bytes, w.flops, occupancy});
    c.ms += ms;
    c.global_bytes += w.bytes;
    c.flops += w.flops;
    occ_sum += occupancy;
    ++c.kernels;
  }
  c.occupancy = c.kernels ? occ_sum / c.kernels : 0;
  return c;
}

}  // namespace cusched::search
