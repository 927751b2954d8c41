// Builds one kernel per root stage: the stage's loop nest from its schedule, with the
// stages computed inside it (compute_at), its staged copies (cache_read), register
// accumulation and cross-thread combination of reductions, and bounds guards.
#include <algorithm>
#include <functional>
#include <set>

#include "codegen/fast_math.h"
#include "codegen/mma_layout.h"
#include "codegen/wgmma_layout.h"
#include "codegen/passes/affine.h"
#include "codegen/passes/ldmatrix_plan.h"
#include "codegen/passes/passes.h"
#include "dsl/primitives/tensor_core_tile.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {
namespace {

const char* kNumThreads = "__nthreads";

struct Realization {
  std::string buffer;
  MemScope scope = MemScope::Global;
  std::vector<Expr> min;
  std::vector<int64_t> extent;
  std::vector<int64_t> stride;
  int64_t size = 0;
  Expr offset;  // software pipelines: the element offset of the current buffer among several
  // XOR swizzle (cache_read swizzle): elements per 16-byte chunk and the number of rows
  // whose chunk orders differ; 0 = plain row-major.
  int64_t swizzle_chunk = 0, swizzle_rows = 0;
  // cache_read registers: the elements at flat index tail->start and above live in the
  // register array of the thread that copied them.
  std::optional<RegisterTail> tail;
};

Realization dense(const std::string& buffer, MemScope scope, std::vector<Expr> min, std::vector<int64_t> extent, int pad = 0) {
  Realization r;
  r.buffer = buffer;
  r.scope = scope;
  r.min = std::move(min);
  r.extent = std::move(extent);
  r.stride.assign(r.extent.size(), 1);
  int64_t s = 1;
  for (int d = static_cast<int>(r.extent.size()) - 1; d >= 0; --d) {
    r.stride[d] = s;
    s *= r.extent[d] + (d == static_cast<int>(r.extent.size()) - 1 ? pad : 0);
  }
  r.size = s;
  return r;
}

// e / k when every coefficient and the constant of e's linear form (opaque terms
// allowed) are multiples of k; undefined otherwise.
Expr exact_quotient(const Expr& e, int64_t k) {
  auto f = linear_form(e, true);
  if (!f || f->constant % k != 0) return Expr();
  for (auto& [term, c] : f->coeff) {
    if (c % k != 0) return Expr();
    c /= k;
  }
  f->constant /= k;
  return f->to_expr();
}

// Lays a shared copy's rows out with an XOR swizzle: in row `row`, 16-byte chunk c of
// the row is stored at chunk c ^ (row % S), so that the same column of S consecutive
// rows falls in S different bank groups. S = min(chunks per row, 8) must divide the
// number of chunks per row and be a power of two.
void swizzle_rows_of(Realization& r, int element_bytes, const std::string& source) {
  const int64_t chunk = 16 / element_bytes, cols = r.extent.back();
  const int64_t chunks = cols % chunk == 0 ? cols / chunk : 0, rows = std::min<int64_t>(chunks, 8);
  if (r.extent.size() < 2 || chunks == 0 || (rows & (rows - 1)) != 0 || chunks % rows != 0)
    fail("swizzle-layout",
         "cache_read of '" + source + "' asks for a swizzle, but its copy's rows of " + std::to_string(cols) +
             " elements are not a power-of-two or multiple-of-8 number of 16-byte chunks (or the copy has one dimension).",
         "Use pad instead of swizzle for this copy, or choose tile sizes whose staged rows are 4, 8, 16, 32, ... floats.");
  r.swizzle_chunk = chunk;
  r.swizzle_rows = rows;
}

Expr flat_index(const Realization& r, const std::vector<Expr>& args) {
  Expr idx;
  for (size_t d = 0; d < args.size(); ++d) {
    Expr local = args[d];
    int64_t m;
    if (!(is_const_int(r.min[d], &m) && m == 0)) local = local - r.min[d];
    if (r.swizzle_chunk > 0 && d + 1 == args.size() && d > 0) {
      Expr row = args[d - 1];
      if (!(is_const_int(r.min[d - 1], &m) && m == 0)) row = row - r.min[d - 1];
      const Expr chunk = make_int(r.swizzle_chunk);
      if (Expr q = exact_quotient(local, r.swizzle_chunk); q.defined())  // a whole chunk's first element
        local = bit_xor(q, row % make_int(r.swizzle_rows)) * chunk;
      else
        local = bit_xor(local / chunk, row % make_int(r.swizzle_rows)) * chunk + local % chunk;
    }
    Expr term = r.stride[d] == 1 ? local : local * make_int(r.stride[d]);
    idx = idx.defined() ? idx + term : term;
  }
  if (r.offset.defined()) idx = idx.defined() ? idx + r.offset : r.offset;
  return idx.defined() ? idx : make_int(0);
}

struct DerivedLoop {
  LoopInfo info;
  std::string var;  // IR variable name
};

struct DerivedNest {
  std::vector<DerivedLoop> loops;
  std::map<std::string, Expr> value;  // original variable -> expression over IR variables
  std::vector<Expr> guards;           // conditions for non-dividing splits
};

// Replays a stage's splits and fuses on the given extents of its variables.
DerivedNest derive_nest(const StageSchedule& s, std::map<std::string, int64_t> extent) {
  for (const auto& rel : s.relations) {
    if (rel.kind == LoopRelation::Split) {
      extent[rel.b] = (extent[rel.a] + rel.factor - 1) / rel.factor;
      extent[rel.c] = rel.factor;
    } else if (rel.kind == LoopRelation::Reverse) {
      extent[rel.b] = extent[rel.a];
    } else {
      extent[rel.c] = extent[rel.a] * extent[rel.b];
    }
  }
  DerivedNest n;
  std::map<std::string, Expr> val;
  for (const auto& name : s.order) {
    DerivedLoop l;
    l.info = s.loops.at(name);
    l.info.extent = extent[name];
    l.var = s.stage + "_" + name;
    val[name] = make_var(l.var);
    n.loops.push_back(l);
  }
  for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
    if (it->kind == LoopRelation::Split) {
      val[it->a] = val[it->b] * make_int(it->factor) + val[it->c];
      if (extent[it->b] * it->factor != extent[it->a]) n.guards.push_back(val[it->a] < make_int(extent[it->a]));
    } else if (it->kind == LoopRelation::Reverse) {
      val[it->a] = make_int(extent[it->a] - 1) - val[it->b];
    } else {
      val[it->a] = val[it->c] / make_int(extent[it->b]);
      val[it->b] = val[it->c] % make_int(extent[it->b]);
    }
  }
  n.value = val;
  return n;
}

Expr conjunction(const std::vector<Expr>& conds) {
  Expr c;
  for (const auto& x : conds) c = c.defined() ? (c && x) : x;
  return c;
}

Stmt guarded(const std::vector<Expr>& conds, Stmt s) {
  Expr c = conjunction(conds);
  return c.defined() ? make_if(c, s) : s;
}

// True when the integer expression is a multiple of n whatever values its variables
// and opaque terms (divisions, moduli) take.
bool provably_multiple_of(const Expr& e, int64_t n) { return exact_quotient(e, n).defined(); }

// A block's copy loop over `units` units, each thread taking every n-th: unrolled when
// each thread runs it at most 16 times (with at least `min_threads` threads), so that
// its loads issue back to back.
LoopKind copy_loop_kind(int64_t units, int64_t min_threads) {
  return (units + min_threads - 1) / min_threads <= 16 ? LoopKind::Unrolled : LoopKind::Serial;
}

// The buffer of a pipeline of `depth` buffers that iteration `it` uses.
Expr buffer_of(const Expr& it, int64_t depth) {
  int64_t k = 0;
  return is_const_int(it, &k) ? make_int(k % depth) : it % make_int(depth);
}

class KernelBuilder {
 public:
  KernelBuilder(const ScheduleState& st, const std::vector<BufferSpec>& globals) : st_(st) {
    for (const auto& b : globals) globals_[b.name] = b;
  }

  Kernel build(const FuncDef& root, int index) {
    used_.clear();
    register_tails_.clear();
    const StageSchedule& s = st_.schedules.at(root.name);
    bool seen_other = false;
    for (const auto& n : s.order) {
      bool block = is_block_axis(s.loops.at(n).axis);
      if (block && seen_other)
        fail("block-loop-not-outermost", "Loop '" + n + "' of stage '" + root.name + "' is bound to a block axis but is inside a loop that is not.",
             "Reorder the stage so that its blockIdx loops come first.");
      seen_other |= !block;
    }
    const BufferSpec& g = globals_.at(root.name);
    std::vector<Expr> zeros(g.shape.size(), make_int(0));
    Realization self = dense(root.name, MemScope::Global, zeros, g.shape);
    used_.insert(root.name);
    Env env;
    for (const auto& [name, b] : globals_)
      if (b.role != BufferRole::Input && name != root.name) {
        std::vector<Expr> z(b.shape.size(), make_int(0));
        env[name] = dense(name, MemScope::Global, z, b.shape);
      }
    Kernel k;
    k.name = "k" + std::to_string(index) + "_" + root.name;
    k.body = build_stage(root, self, env, false, false);
    k.launch_max_threads = s.launch_max_threads;
    k.launch_min_blocks = s.launch_min_blocks;
    k.l2_hints = s.l2_hints;
    k.register_tails = register_tails_;
    for (const auto& b : order_of_globals())
      if (used_.count(b)) k.params.push_back(b);
    return k;
  }

 private:
  using Env = std::map<std::string, Realization>;
  const ScheduleState& st_;
  std::map<std::string, BufferSpec> globals_;
  std::set<std::string> used_;
  std::vector<RegisterTail> register_tails_;  // of the kernel being built
  int uid_ = 0;
  struct Prologue {
    Stmt copies;                                       // issued before the loop
    std::vector<std::pair<DType, Realization>> buffers;  // the pipeline's buffers, allocated around the loop
  };
  std::map<std::string, Prologue> prologue_;  // loop variable of a pipelined loop -> its prologue

  std::vector<std::string> order_of_globals() const {
    std::vector<std::string> out;
    for (const auto& in : st_.ctx.pipeline.inputs()) out.push_back(in->name);
    for (const auto& f : st_.stages)
      if (globals_.count(f->name)) out.push_back(f->name);
    return out;
  }

  const FuncDef& def(const std::string& name) const { return *st_.stage_def(name); }

  bool is_inline(const std::string& name) const {
    auto it = st_.schedules.find(name);
    return it != st_.schedules.end() && it->second.location == ComputeLocation::Inline;
  }

  // Expands loads of inlined stages in `e`.
  Expr inline_stages(const Expr& e) const {
    return rewrite(e, [&](const Expr& x) -> Expr {
      if (x->op == ExprOp::Load && !x->tensor && is_inline(x->name)) {
        const FuncDef& p = def(x->name);
        std::map<std::string, Expr> m;
        for (size_t d = 0; d < p.vars.size(); ++d) m[p.vars[d]] = x->args[d];
        return inline_stages(substitute(p.body, m));
      }
      return x;
    });
  }

  // Lowers the loads of a value expression to flat loads of buffers, with the stage's
  // operand rounding (unless `round_operands` is false: the instruction that reads the
  // value converts it itself, as wgmma truncates to tf32) and, under math "fast", its
  // fast-math calls.
  Expr lower_value(const Expr& e, const Env& env, const Env& caches, const StageSchedule& s, bool round_operands = true) {
    const std::string precision = round_operands ? s.precision : "f32";
    Expr lowered = rewrite(e, [&](const Expr& x) -> Expr {
      if (x->op != ExprOp::Load || x->args.size() == 0) return x;
      if (x->args.size() == 1 && !x->tensor && !x->func && st_.stage_def(x->name) == nullptr &&
          !st_.ctx.pipeline.find_input(x->name))
        return x;  // already flat
      Expr out = load(x->name, x->args, x.type(), env, caches);
      // 3xtf32 operands stay f32: the tensor-core instruction splits them itself.
      if (precision != "f32" && precision != "3xtf32" && dtype_is_float(x.type()))
        out = make_call("round_" + precision, {out}, x.type());
      return out;
    });
    return s.math == "fast" ? with_fast_math(lowered) : lowered;
  }

  Expr load(const std::string& name, const std::vector<Expr>& args, DType t, const Env& env, const Env& caches) {
    auto c = caches.find(name);
    if (c != caches.end() && c->second.tail) {
      // Shared below the tail's start, else the copying thread's register; resolve_register_tails
      // proves that thread is the reader and rewrites the register index.
      const RegisterTail& tail = *c->second.tail;
      const int64_t step = tail.threads * tail.lanes;
      const Expr f = flat_index(c->second, args);
      const Expr reg = (f / make_int(step) - make_int(tail.start / step)) * make_int(tail.lanes) + f % make_int(tail.lanes);
      return select(f < make_int(tail.start), make_load(tail.shared, t, {f}), make_load(tail.registers, t, {reg}));
    }
    if (c != caches.end()) return make_load(c->second.buffer, t, {flat_index(c->second, args)});
    auto r = env.find(name);
    if (r != env.end()) {
      if (r->second.scope == MemScope::Global) used_.insert(r->second.buffer);
      return make_load(r->second.buffer, t, {flat_index(r->second, args)});
    }
    auto g = globals_.find(name);
    if (g != globals_.end() && g->second.role == BufferRole::Input) {
      used_.insert(name);
      std::vector<Expr> z(g->second.shape.size(), make_int(0));
      return make_load(name, t, {flat_index(dense(name, MemScope::Global, z, g->second.shape), args)});
    }
    fail("producer-not-visible", "Stage '" + name + "' is read where it has not been computed: it is computed inside another stage's loop that does not enclose this read.",
         "Compute it at root, or at a loop that encloses every stage that reads it.");
  }

  // All index tuples with which `body` loads `name` (after inlining).
  static void collect_loads(const Expr& e, const std::string& name, std::vector<std::vector<Expr>>& out) {
    if (!e.defined()) return;
    if (e->op == ExprOp::Load && e->name == name) out.push_back(e->args);
    for (const auto& a : e->args) collect_loads(a, name, out);
  }

  // The region of `name` that `body` reads while the loops in `sweep` run. A dimension
  // whose region would reach the tensor's extent is the whole dimension, unless
  // `whole_tile` asks for the loops' full range (tails beyond the tensor included).
  bool region_of(const Expr& body, const std::string& name, const std::map<std::string, Expr>& orig,
                 const std::map<std::string, int64_t>& sweep, const std::vector<int64_t>& full,
                 std::vector<Expr>& min, std::vector<int64_t>& extent, bool whole_tile = false) {
    std::vector<std::vector<Expr>> loads;
    collect_loads(body, name, loads);
    min.assign(full.size(), make_int(0));
    extent = full;
    if (loads.empty()) return false;
    for (size_t d = 0; d < full.size(); ++d) {
      std::optional<LinearForm> lo;
      int64_t hi_off = 0;
      bool ok = true;
      for (const auto& args : loads) {
        auto r = index_range(substitute(args[d], orig), sweep);
        if (!r) {
          ok = false;
          break;
        }
        if (!lo) {
          lo = r->min_form;
          hi_off = r->extent - 1;
          continue;
        }
        // Union: the mins must differ by a constant.
        LinearForm diff = r->min_form;
        for (const auto& [v, c] : lo->coeff) diff.coeff[v] -= c;
        diff.constant -= lo->constant;
        bool constant = true;
        for (const auto& [v, c] : diff.coeff) constant &= c == 0;
        if (!constant) {
          ok = false;
          break;
        }
        int64_t shift = diff.constant;
        int64_t new_hi = std::max(hi_off, shift + r->extent - 1);
        if (shift < 0) {
          lo->constant += shift;
          new_hi -= shift;
          hi_off -= shift;
        }
        hi_off = std::max(hi_off, new_hi);
      }
      if (ok && (hi_off + 1 < full[d] || whole_tile)) {
        min[d] = lo->to_expr();
        extent[d] = hi_off + 1;
      }
    }
    return true;
  }

  // The stage's loop nest over its region `self`, and its body over the nest's IR
  // variables with loads still multi-dimensional.
  struct StageNest {
    DerivedNest nest;
    Expr body;
    std::map<std::string, Expr> orig;
  };
  StageNest stage_nest(const FuncDef& f, const Realization& self) {
    const StageSchedule& s = st_.schedules.at(f.name);
    std::map<std::string, int64_t> base;
    for (size_t d = 0; d < f.vars.size(); ++d) base[f.vars[d]] = self.extent[d];
    if (f.is_reduction())
      for (const auto& r : f.body->rvars) base[r.name] = eval_int(r.extent_expr, st_.ctx.sizes);
    DerivedNest nest = derive_nest(s, base);
    std::map<std::string, Expr> orig;
    std::vector<Expr> pure_guards;
    for (size_t d = 0; d < f.vars.size(); ++d) {
      orig[f.vars[d]] = self.min[d] + nest.value[f.vars[d]];
      // A region placed by compute_at may reach past the stage's domain at the tails
      // of its consumer's loops; those points are not computed.
      int64_t full = eval_int(f.extents[d], st_.ctx.sizes), m = -1;
      if (!(is_const_int(self.min[d], &m) && m + self.extent[d] <= full))
        nest.guards.push_back(orig[f.vars[d]] < make_int(full));
    }
    if (f.is_reduction())
      for (const auto& r : f.body->rvars) orig[r.name] = nest.value[r.name];
    Expr body = inline_stages(f.is_reduction() ? f.body->args[0] : f.body);
    body = substitute(body, orig);
    body = rewrite(body, [&](const Expr& x) -> Expr {
      if (x->op == ExprOp::SizeParam) return make_int(eval_int(x, st_.ctx.sizes), x.type());
      return x;
    });
    return {nest, body, orig};
  }

  // `caches`: copies made around the stage that it reads instead of their sources.
  Stmt build_stage(const FuncDef& f, const Realization& self, Env env, bool in_thread, bool in_serial, const Env& caches = {}) {
    const StageSchedule& s = st_.schedules.at(f.name);
    StageNest sn = stage_nest(f, self);
    Ctx c{f, s, sn.nest, self, sn.body, sn.orig};
    if (s.cache_write_scope == "shared") check_output_tile(c);
    return emit(c, 0, env, caches, in_thread, in_serial);
  }

  struct Ctx {
    const FuncDef& f;
    const StageSchedule& s;
    DerivedNest& nest;
    const Realization& self;
    Expr body;  // over IR variables, loads still multi-dimensional
    std::map<std::string, Expr> orig;
  };

  // A lower bound of the block's thread count: the product over thread axes of the
  // stage's own thread loops (and the 32 lanes of each warp for tensor cores).
  static int64_t threads_at_least(const Ctx& c) {
    std::map<GpuAxis, int64_t> extent;
    for (const auto& l : c.nest.loops)
      if (is_thread_axis(l.info.axis)) extent[l.info.axis] = std::max(extent[l.info.axis], l.info.extent);
    if (!c.s.tensor_core_shape.empty())
      extent[GpuAxis::ThreadX] = std::max<int64_t>(extent[GpuAxis::ThreadX], uses_wgmma(c) ? kWgmmaThreads : 32);
    int64_t n = 1;
    for (const auto& [axis, e] : extent) n *= e;
    return n;
  }

  int first_reduction(const Ctx& c) const {
    for (size_t p = 0; p < c.nest.loops.size(); ++p)
      if (c.nest.loops[p].info.reduction) return static_cast<int>(p);
    return -1;
  }

  // A loop `v` that spreads `units` over the block's threads: in iteration v the thread
  // `tid` takes unit e = v * threads + tid, guarded by e < units (drop_covered_copy_guards
  // removes the guard when no thread overruns).
  static Stmt over_block_threads(const std::string& v, int64_t units, LoopKind kind, const std::function<Stmt(const Expr&)>& body) {
    const Expr nt = make_var(kNumThreads), e = make_var(v) * nt + make_var("tid");
    return make_for(v, make_int(0), (make_int(units) + nt - make_int(1)) / nt, kind, GpuAxis::None,
                    guarded({e < make_int(units)}, body(e)));
  }

  // The storage of a realization around `body`. A swizzled shared copy starts at a
  // 1024-byte boundary, where the 128-byte swizzle pattern that wgmma reads starts.
  static Stmt allocate_realization(DType t, const Realization& r, Stmt body) {
    if (r.scope == MemScope::Shared && r.swizzle_chunk > 0)
      return make_aligned_allocate(r.buffer, r.scope, t, r.size, kWgmmaSwizzleAtomBytes, body);
    return make_allocate(r.buffer, r.scope, t, r.size, body);
  }

  // The loop, preceded by the first copies of its software pipeline if it has one.
  Stmt make_loop(const DerivedLoop& l, Stmt body, bool keep_kind = true) {
    LoopKind k = keep_kind ? l.info.kind : (l.info.kind == LoopKind::Vectorized ? LoopKind::Unrolled : l.info.kind);
    Stmt loop = make_for(l.var, make_int(0), make_int(l.info.extent), k, l.info.axis, body);
    auto it = prologue_.find(l.var);
    if (it == prologue_.end()) return loop;
    // The pipeline's buffers live across the loop's iterations: allocated around it.
    Stmt s = make_block({it->second.copies, loop});
    for (auto a = it->second.buffers.rbegin(); a != it->second.buffers.rend(); ++a) s = allocate_realization(a->first, a->second, s);
    prologue_.erase(it);
    return s;
  }

  // The region of a source that a staged copy holds, and the source's extents.
  struct CopyRegion {
    std::vector<Expr> min;
    std::vector<int64_t> extent, full;
  };

  // Whether producer `pd`, computed at loop p of c's stage over `region`, reads `source`;
  // fails unless every element it reads lies in the copy that c makes there and shares
  // (cache_read share). The producer's loops bound to block axes, the cluster and (for
  // a register copy) threads name the same hardware index as c's loops bound to the same
  // axis at or outside p, and stand for them; its other loops sweep.
  bool check_shared_copy_reads(const Ctx& c, int p, const FuncDef& pd, const Realization& region, const std::string& source,
                               const CopyRegion& copy, MemScope scope) {
    StageNest sn = stage_nest(pd, region);
    std::vector<std::vector<Expr>> loads;
    collect_loads(sn.body, source, loads);
    if (loads.empty()) return false;
    const std::string where = "cache_read of '" + source + "' in stage '" + c.f.name + "' is shared at loop '" + c.nest.loops[p].info.name + "'";
    const std::string hint = "Split and bind the producer's loops over '" + source +
                             "' as the stage does (the same parts on the same axes), or drop share.";
    std::map<std::string, Expr> same_index;
    std::map<std::string, int64_t> sweep;
    for (const auto& l : sn.nest.loops) {
      const GpuAxis a = l.info.axis;
      const bool fixed = is_block_axis(a) || a == GpuAxis::ClusterX || (scope == MemScope::Register && is_thread_axis(a));
      if (!fixed) {
        sweep[l.var] = l.info.extent;
        continue;
      }
      const DerivedLoop* match = nullptr;
      for (int q = 0; q <= p; ++q)
        if (c.nest.loops[q].info.axis == a) match = &c.nest.loops[q];
      if (!match)
        fail("cache-read-share-region", where + ", but stage '" + pd.name + "' binds loop '" + l.info.name + "' to " + gpu_axis_name(a) +
                 ", which no loop of '" + c.f.name + "' around the copy binds, so its reads cannot be placed in the copy.",
             hint);
      same_index[l.var] = make_var(match->var);
    }
    const auto& [mn, ex, full] = copy;
    std::vector<Expr> pmn;
    std::vector<int64_t> pex;
    region_of(substitute(sn.body, same_index), source, {}, sweep, full, pmn, pex);
    for (size_t d = 0; d < ex.size(); ++d) {
      auto diff = linear_form(pmn[d] - mn[d]);
      bool constant = diff.has_value();
      if (diff)
        for (const auto& [v, k] : diff->coeff) constant &= k == 0;
      if (!constant || diff->constant < 0 || diff->constant + pex[d] > ex[d])
        fail("cache-read-share-region", where + ", but stage '" + pd.name + "' reads elements of dimension " + std::to_string(d) +
                 " outside the copied region (" + std::to_string(ex[d]) + " elements from the stage's own reads; the producer reads " +
                 std::to_string(pex[d]) + (constant ? " starting " + std::to_string(diff->constant) + " elements in" : " at a different place") + ").",
             hint);
    }
    return true;
  }

  // Statements placed at the top of loop p's body: producers computed there and copies
  // staged there. `inner` builds the rest once the new realizations are known.
  Stmt with_placements(Ctx& c, int p, Env env, Env caches, bool in_thread, bool in_serial,
                       const std::function<Stmt(const Env&, const Env&)>& inner) {
    const std::string loop = c.nest.loops[p].info.name;
    std::map<std::string, int64_t> sweep;
    for (size_t q = p + 1; q < c.nest.loops.size(); ++q) sweep[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
    std::vector<Stmt> pre;
    std::vector<std::pair<DType, Realization>> allocs;  // element type and storage of each placement
    // Copies staged at this loop. A software-pipelined loop (pipeline) keeps `depth`
    // buffers per copy: the copies for iteration v + depth - 1 are issued asynchronously
    // at the top of iteration v, and the first depth - 1 before the loop. Copies move
    // 16 bytes per thread and step where alignment is provable (copies_16_bytes), on
    // the bulk engine whole rows issued by one thread and tracked by one mbarrier per
    // buffer of the pipeline.
    const DerivedLoop& here = c.nest.loops[p];
    const int64_t depth = c.s.pipeline_loop == loop ? c.s.pipeline_depth : 0;
    const bool bulk = depth > 0 && c.s.pipeline_bulk;
    // Iterations the cp.async copies run ahead: depth - 1, one fewer while a k-step of
    // wgmma instructions stays in flight and still reads the buffer before.
    const int64_t lead = depth - 1 - wgmma_groups_in_flight(c);
    const bool wgmma = uses_wgmma(c);
    const std::string bar = here.var + "_bar";  // the bulk pipeline's mbarriers, one per buffer
    std::vector<std::vector<Stmt>> async_copies(depth);  // [iteration offset]: issues (cp.async: lead + 1 of them)
    std::vector<Expr> bulk_bytes(depth);                                 // [iteration offset]: bytes the bulk copies move
    std::vector<std::pair<DType, Realization>> pipeline_buffers;
    const int64_t min_threads = threads_at_least(c);
    // A pipelined copy's storage holds `depth` buffers; iteration v reads buffer v % depth.
    auto keep_pipeline_buffers = [&](const std::string& source, DType t, Realization& r, int64_t buffer_size) {
      r.offset = buffer_of(make_var(here.var), depth) * make_int(buffer_size);
      Realization storage = r;
      storage.size = buffer_size * depth;
      caches[source] = r;
      pipeline_buffers.push_back({t, storage});
    };
    std::map<std::string, CopyRegion> copy_regions;  // source -> region copied
    auto place_copy = [&](const CacheRead& cr) {
      std::vector<int64_t> full;
      DType t;
      if (auto* in = st_.ctx.pipeline.find_input(cr.source)) {
        full = eval_shape(in->shape, st_.ctx.sizes);
        t = in->dtype;
      } else {
        const FuncDef& sd = def(cr.source);
        full = eval_shape(sd.extents, st_.ctx.sizes);
        t = sd.dtype;
      }
      std::vector<Expr> mn;
      std::vector<int64_t> ex;
      // A wgmma stage's tensor cores read whole tiles from its copies: tails included (zeroed).
      region_of(c.body, cr.source, {}, sweep, full, mn, ex, wgmma);
      copy_regions[cr.source] = {mn, ex, full};
      if (cr.scope == "shared" && in_thread)
        fail("shared-copy-in-thread-loop", "cache_read of '" + cr.source + "' into shared memory is made at loop '" + loop +
                 "', which is inside a thread loop, so each thread would overwrite the block's copy.",
             "Make the copy at a loop outside the stage's threadIdx loops, or use scope register.");
      MemScope scope = cr.scope == "shared" ? MemScope::Shared : MemScope::Register;
      Realization r = dense(cr.name, scope, mn, ex, cr.swizzle ? 0 : cr.pad);
      if (cr.swizzle && scope == MemScope::Shared) swizzle_rows_of(r, dtype_bytes(t), cr.source);
      int64_t total = 1;
      for (auto e : ex) total *= e;
      // The coordinates of the region's unit number e, where a unit is `lanes`
      // consecutive elements of the innermost dimension (lanes divides its extent):
      // the coordinates of the unit's first element.
      auto src_index = [&](const Expr& e, int64_t lanes = 1) {
        std::vector<Expr> args;
        int64_t inner = total / lanes;
        for (size_t d = 0; d < ex.size(); ++d) {
          const bool last = d + 1 == ex.size();
          const int64_t units = last ? ex[d] / lanes : ex[d];
          inner /= units;
          Expr coord = units == 1 ? make_int(0) : inner == 1 ? e : e / make_int(inner);
          if (d > 0 && units > 1) coord = coord % make_int(units);
          if (last && lanes > 1) coord = coord * make_int(lanes);
          args.push_back(mn[d] + coord);
        }
        return args;
      };
      // Dimensions in which the region stays inside the source for every iteration of
      // the loops around the copy (its min swept over their extents).
      std::vector<bool> inside(ex.size());
      for (size_t d = 0; d < ex.size(); ++d) {
        std::map<std::string, int64_t> around;
        for (int q = 0; q <= p; ++q) around[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
        auto range = index_range(mn[d], around);
        bool fixed = range.has_value();
        if (range)
          for (const auto& [v, k] : range->min_form.coeff) fixed &= k == 0;
        inside[d] = ex[d] == full[d] || (fixed && range->min_form.constant >= 0 &&
                                         range->min_form.constant + range->extent - 1 + ex[d] <= full[d]);
      }
      // Elements of the region outside the source (tails of non-dividing splits) are not copied.
      auto in_source = [&](const std::vector<Expr>& a) {
        std::vector<Expr> conds;
        for (size_t d = 0; d < a.size(); ++d) {
          if (inside[d]) continue;
          conds.push_back(a[d] < make_int(full[d]));
        }
        return conds;
      };
      // A copy of the elements that lie in the source; in a wgmma stage, whose tensor cores
      // read whole staged rows, the elements outside it (tails) are written as zeros.
      auto zero_outside = [&](const std::vector<Expr>& conds, Stmt copy, const Realization& dst, const std::vector<Expr>& a,
                              int64_t lanes) {
        if (!wgmma || conds.empty()) return guarded(conds, copy);
        std::vector<Stmt> zeros;
        for (int64_t k = 0; k < lanes; ++k) {
          std::vector<Expr> e = a;
          e.back() = e.back() + make_int(k);
          zeros.push_back(make_store(cr.name, flat_index(dst, e), make_float(0.0)));
        }
        return make_if(conjunction(conds), copy, make_block(zeros));
      };
      const int64_t pitch = ex.back() + (cr.swizzle ? 0 : cr.pad);
      // 16 bytes (4 elements) per copy where every chunk of 4 innermost elements starts
      // 16-byte aligned in both buffers and lies wholly inside or wholly outside the source.
      auto copies_16_bytes = [&](const Realization& dst) {
        if (scope != MemScope::Shared || dtype_bytes(t) != 4 || ex.back() % 4 != 0 || pitch % 4 != 0 || full.back() % 4 != 0 ||
            !provably_multiple_of(mn.back(), 4))
          return false;
        std::vector<Expr> a = src_index(make_var(cr.name + "_chunk"), 4);
        Expr src = load(cr.source, a, t, env, {});
        return provably_multiple_of(src->args[0], 4) && provably_multiple_of(flat_index(dst, a), 4);
      };
      if (scope == MemScope::Shared && bulk) {
        if (r.swizzle_chunk > 0)
          fail("bulk-copy-swizzle", "cache_read of '" + cr.source + "' is swizzled, but the bulk copy engine writes each row contiguously.",
               "Pad the copy instead of swizzling it, or pipeline it with engine cp.async.");
        const int64_t S = r.size, esize = dtype_bytes(t), rows = total / ex.back();
        Realization at0 = r;
        at0.offset = make_var(here.var) * make_int(S);
        std::vector<Expr> row0 = src_index(make_var(cr.name + "_row"), ex.back());
        Expr src0 = load(cr.source, row0, t, env, {});
        const BufferSpec* g = globals_.count(src0->name) ? &globals_.at(src0->name) : nullptr;
        if (!g || (env.count(cr.source) && env.at(cr.source).scope != MemScope::Global))
          fail("bulk-copy-source", "cache_read of '" + cr.source + "' is pipelined on the bulk copy engine at loop '" + loop +
                   "', but its source is not in global memory here.",
               "Bulk-copy global tensors only: compute the source at root, or use the pipeline's cp.async engine.");
        if (16 % esize != 0 || (ex.back() * esize) % 16 != 0 || (pitch * esize) % 16 != 0 || (full.back() * esize) % 16 != 0 ||
            !provably_multiple_of(src0->args[0], 16 / esize) || !provably_multiple_of(flat_index(at0, row0), 16 / esize))
          fail("bulk-copy-alignment",
               "cache_read of '" + cr.source + "' is pipelined on the bulk copy engine at loop '" + loop + "', but its rows of " +
                   std::to_string(ex.back() * esize) + " bytes (shared row pitch " + std::to_string(pitch * esize) +
                   " bytes, source rows of " + std::to_string(full.back() * esize) +
                   " bytes) are not all multiples of 16 bytes starting at 16-byte aligned addresses.",
               "Pad the staged rows to a multiple of 16 bytes (4 floats: cache_read pad), tile so that each copied row "
               "starts at a multiple of 4 floats, or use the pipeline's cp.async engine.");
        // The copy of the region for iteration `it` into buffer it % depth: one bulk copy
        // per row of the region that lies in the source, of the row's bytes in the source.
        auto issue = [&](const Expr& it) {
          std::string rv = cr.name + "_row" + std::to_string(uid_++);
          std::vector<Expr> a = src_index(make_var(rv), ex.back());
          for (auto& x : a) x = substitute(x, {{here.var, it}});
          Realization at = r;
          for (auto& m : at.min) m = substitute(m, {{here.var, it}});
          at.offset = buffer_of(it, depth) * make_int(S);
          Expr row_bytes = inside.back() ? make_int(ex.back() * esize)
                                         : min(make_int(ex.back()), make_int(full.back()) - a.back()) * make_int(esize);
          Stmt copy = make_bulk_copy(cr.name, flat_index(at, a), load(cr.source, a, t, env, {}), row_bytes, bar,
                                     buffer_of(it, depth));
          Expr bytes = make_int(esize);
          for (size_t d = 0; d < ex.size(); ++d)
            bytes = bytes * (inside[d] ? make_int(ex[d])
                                       : min(make_int(ex[d]), max(make_int(full[d]) - at.min[d], make_int(0))));
          return std::pair{make_for(rv, make_int(0), make_int(rows), LoopKind::Serial, GpuAxis::None, guarded(in_source(a), copy)),
                           bytes};
        };
        for (int64_t s = 0; s < depth; ++s) {
          auto [copies, bytes] = issue(s + 1 < depth ? make_int(s) : make_var(here.var) + make_int(depth - 1));
          async_copies[s].push_back(copies);
          bulk_bytes[s] = bulk_bytes[s].defined() ? bulk_bytes[s] + bytes : bytes;
        }
        keep_pipeline_buffers(cr.source, t, r, S);
        return;
      }
      if (cr.registers > 0 && !c.s.tensor_core_shape.empty())
        fail("registers-tensor-cores", "cache_read of '" + cr.source + "' keeps " + std::to_string(cr.registers) +
                 " copy steps in registers, but stage '" + c.f.name + "' uses tensor cores, which read their operands from "
                 "shared memory directly (ldmatrix, wgmma descriptors), not through the copying thread.",
             "Drop registers on a tensor-core stage's copies.");
      if (cr.registers > 0 && depth > 0)
        fail("registers-pipelined", "cache_read of '" + cr.source + "' keeps " + std::to_string(cr.registers) +
                 " copy steps in registers, but it is software-pipelined at loop '" + loop + "', whose buffers rotate in shared memory.",
             "Drop registers, or drop the pipeline step.");
      if (scope == MemScope::Shared && depth > 0) {
        if (dtype_bytes(t) != 4)
          fail("pipeline-element-size", "cache_read of '" + cr.source + "' is pipelined at loop '" + loop + "', but its " +
                   std::to_string(dtype_bytes(t)) + "-byte elements cannot be copied with 4-byte cp.async.",
               "Pipeline copies of 4-byte elements (f32, i32), or drop the pipeline step.");
        const int64_t S = r.size;
        Realization at0 = r;
        at0.offset = make_var(here.var) * make_int(S);
        const int64_t lanes = copies_16_bytes(at0) ? 4 : 1, units = total / lanes;
        // The copy of the region for iteration `it` into buffer it % depth, one unit
        // (4 or 16 bytes) per thread at a time.
        auto issue = [&](const Expr& it) {
          return over_block_threads(cr.name + "_a" + std::to_string(uid_++), units, copy_loop_kind(units, min_threads), [&](const Expr& e) {
            std::vector<Expr> a = src_index(e, lanes);
            for (auto& x : a) x = substitute(x, {{here.var, it}});
            Realization at = r;
            for (auto& m : at.min) m = substitute(m, {{here.var, it}});
            at.offset = buffer_of(it, depth) * make_int(S);
            Stmt st = make_async_copy(cr.name, flat_index(at, a), load(cr.source, a, t, env, {}), lanes * dtype_bytes(t));
            return zero_outside(in_source(a), st, at, a, lanes);
          });
        };
        for (int64_t s = 0; s <= lead; ++s)
          async_copies[s].push_back(issue(s < lead ? make_int(s) : make_var(here.var) + make_int(lead)));
        keep_pipeline_buffers(cr.source, t, r, S);
        return;
      }
      // One unit of a synchronous shared copy: an element, or a chunk of 4 elements copied
      // by a Vectorized loop that the emitter turns into one float4 load and store.
      // `store` makes the store of the elements at coordinates x, lane `lane` of the unit.
      const int64_t lanes = scope == MemScope::Shared && copies_16_bytes(r) ? 4 : 1, units = total / lanes;
      auto unit_copy = [&](const std::vector<Expr>& a, const std::function<Stmt(const std::vector<Expr>&, const Expr&)>& store) {
        if (lanes == 1) return store(a, make_int(0));
        const std::string lv = cr.name + "_v" + std::to_string(uid_++);
        std::vector<Expr> lane = a;
        lane.back() = lane.back() + make_var(lv);
        return make_for(lv, make_int(0), make_int(lanes), LoopKind::Vectorized, GpuAxis::None, store(lane, make_var(lv)));
      };
      auto to_shared = [&](const std::vector<Expr>& x, const Expr&) {
        return make_store(cr.name, flat_index(r, x), load(cr.source, x, t, env, {}));
      };
      // A register tail where the copy divides evenly over the threads: step v of each
      // thread copies unit v * threads + tid, and the last steps (all but one at most) go
      // to the thread's register array, unrolled so that each register element is named by
      // a constant. Elsewhere (a copy of another size) the copy stays wholly shared.
      if (scope == MemScope::Shared && cr.registers > 0 && units % min_threads == 0 && units / min_threads > 1) {
        const int64_t threads = min_threads, steps = units / threads;
        const int64_t kept = std::max<int64_t>(1, steps - cr.registers);
        Realization tail = dense(cr.name + "_registers", MemScope::Register, {make_int(0)}, {(steps - kept) * lanes});
        const std::string cv = cr.name + "_c" + std::to_string(uid_++);
        const Expr v = make_var(cv), e = v * make_int(threads) + make_var("tid");
        std::vector<Expr> a = src_index(e, lanes);
        Stmt shared_step = unit_copy(a, to_shared);
        Stmt to_registers = unit_copy(a, [&](const std::vector<Expr>& x, const Expr& lane) {
          return make_store(tail.buffer, (v - make_int(kept)) * make_int(lanes) + lane, load(cr.source, x, t, env, {}));
        });
        Stmt body = guarded(in_source(a), make_if(v < make_int(kept), shared_step, to_registers));
        if (in_serial) pre.push_back(make_barrier());
        pre.push_back(make_for(cv, make_int(0), make_int(steps), LoopKind::Unrolled, GpuAxis::None, body));
        pre.push_back(make_barrier());
        r.size = kept * threads * lanes;
        r.tail = RegisterTail{r.buffer, tail.buffer, r.size, threads, lanes};
        register_tails_.push_back(*r.tail);
        caches[cr.source] = r;
        allocs.push_back({t, r});
        allocs.push_back({t, tail});
        return;
      }
      if (scope == MemScope::Shared) {
        // One unit per thread at a time.
        const std::string cv = cr.name + "_c" + std::to_string(uid_++);
        Stmt loopst = over_block_threads(cv, units, copy_loop_kind(units, min_threads), [&](const Expr& e) {
          std::vector<Expr> a = src_index(e, lanes);
          return zero_outside(in_source(a), unit_copy(a, to_shared), r, a, lanes);
        });
        if (in_serial) pre.push_back(make_barrier());
        pre.push_back(loopst);
        if (wgmma) pre.push_back(make_async_proxy_fence());
        pre.push_back(make_barrier());
      } else {
        std::string cv = cr.name + "_r" + std::to_string(uid_++);
        Expr e = make_var(cv);
        std::vector<Expr> a = src_index(e);
        Stmt st = guarded(in_source(a), make_store(cr.name, flat_index(r, a), load(cr.source, a, t, env, {})));
        pre.push_back(make_for(cv, make_int(0), make_int(total), total <= 64 ? LoopKind::Unrolled : LoopKind::Serial,
                               GpuAxis::None, st));
      }
      caches[cr.source] = r;
      allocs.push_back({t, r});
    };
    // Copies shared with the producers (cache_read share) come first, and the producers
    // read them instead of their sources.
    Env shared_caches;
    std::set<std::string> used_share;
    for (const auto& cr : c.s.cache_reads) {
      if (cr.at_loop != loop || !cr.share) continue;
      if (depth > 0)
        fail("cache-read-share-pipelined", "cache_read of '" + cr.source + "' is shared with the producers at loop '" + loop +
                 "', which is software-pipelined, so the copy of one iteration is not ready before the producers run.",
             "Share a copy made at a loop that is not pipelined, or drop share.");
      place_copy(cr);
      shared_caches[cr.source] = caches.at(cr.source);
    }
    // Producers computed at this loop.
    for (const auto& pd : st_.stages) {
      const StageSchedule& ps = st_.schedules.at(pd->name);
      if (ps.location != ComputeLocation::At || ps.at_stage != c.f.name || ps.at_loop != loop) continue;
      for (const auto& n : ps.order)
        if (is_block_axis(ps.loops.at(n).axis))
          fail("producer-binds-block", "Stage '" + pd->name + "' is computed inside '" + c.f.name + "' but binds loop '" + n + "' to a block axis.",
               "Bind the producer's loops to thread axes only, or compute it at root.");
      for (const auto& n : ps.order)
        if (ps.loops.at(n).axis == GpuAxis::ClusterX && n != ps.cross_cluster_loop)
          fail("producer-binds-cluster", "Stage '" + pd->name + "' is computed inside '" + c.f.name + "' but binds its pure loop '" + n +
                   "' to cluster.x, so each block of the cluster would hold only part of it.",
               "Inside another stage, use cluster.x only for a reduction loop combined with cross_thread_reduce kind \"cluster\".");
      for (const auto& n : ps.order)
        if (in_thread && is_thread_axis(ps.loops.at(n).axis))
          fail("thread-loop-in-register-producer", "Stage '" + pd->name + "' is computed per thread (inside a thread loop of '" + c.f.name +
                   "') but binds loop '" + n + "' to a thread axis.",
               "Leave its loops serial, or compute it at a block-level loop so that the block's threads share it.");
      std::vector<int64_t> full = eval_shape(pd->extents, st_.ctx.sizes);
      std::vector<Expr> mn;
      std::vector<int64_t> ex;
      region_of(c.body, pd->name, {}, sweep, full, mn, ex);
      MemScope scope = in_thread ? MemScope::Register : MemScope::Shared;
      Realization r = dense(pd->name, scope, mn, ex);
      Env penv = env;
      for (const auto& [source, copy] : shared_caches) {
        if (check_shared_copy_reads(c, p, *pd, r, source, copy_regions.at(source), copy.scope)) used_share.insert(source);
      }
      Stmt compute = build_stage(*pd, r, penv, in_thread, in_serial, shared_caches);
      if (scope == MemScope::Shared) {
        bool threaded = false;
        for (const auto& n : ps.order) threaded |= is_thread_axis(ps.loops.at(n).axis);
        // A producer with no thread loops is computed by one thread of the block.
        if (!threaded && !contains_collective(compute)) compute = make_if(make_var("tid") == make_int(0), compute);
        if (in_serial) pre.push_back(make_barrier());
        pre.push_back(compute);
        pre.push_back(make_barrier());
      } else {
        pre.push_back(compute);
      }
      env[pd->name] = r;
      allocs.push_back({pd->dtype, r});
    }
    for (const auto& [source, copy] : shared_caches)
      if (!used_share.count(source))
        fail("cache-read-share-unused", "cache_read of '" + source + "' in stage '" + c.f.name + "' is shared at loop '" + loop +
                 "', but no stage computed there reads '" + source + "'.",
             "Compute the stages that read it at that loop (compute_at), or drop share.");
    for (const auto& cr : c.s.cache_reads)
      if (cr.at_loop == loop && !cr.share) place_copy(cr);
    bool end_barrier = false;
    if (bulk && !async_copies[0].empty()) {
      // Before the loop: one thread initialises the mbarriers (one arrival per phase:
      // the issuing thread's), a barrier publishes them, and the copies of iterations
      // 0 .. depth-2 are issued, each announced on its buffer's mbarrier first.
      const Expr issuer = make_var("tid") == make_int(0);
      auto announced = [&](int64_t s, const Expr& it) {
        std::vector<Stmt> b = {make_mbarrier_expect(bar, buffer_of(it, depth), bulk_bytes[s])};
        b.insert(b.end(), async_copies[s].begin(), async_copies[s].end());
        return make_block(b);
      };
      const std::string bv = bar + "_init";
      std::vector<Stmt> first = {
          make_if(issuer, make_for(bv, make_int(0), make_int(depth), LoopKind::Unrolled, GpuAxis::None,
                                   make_mbarrier_init(bar, make_var(bv), 1))),
          make_barrier()};
      for (int64_t s = 0; s + 1 < depth && s < here.info.extent; ++s) first.push_back(make_if(issuer, announced(s, make_int(s))));
      pipeline_buffers.push_back({DType::i64, dense(bar, MemScope::Shared, {make_int(0)}, {depth})});
      prologue_[here.var] = {make_block(first), pipeline_buffers};
      // In the loop: issue iteration v + depth - 1; every thread waits for iteration v's
      // phase of its buffer's mbarrier (the (v / depth)-th, counting from 0).
      const Expr v = make_var(here.var), next = v + make_int(depth - 1);
      pre.push_back(make_if(next < make_int(here.info.extent) && issuer, announced(depth - 1, next)));
      pre.push_back(make_mbarrier_wait(bar, buffer_of(v, depth), (v / make_int(depth)) % make_int(2)));
      end_barrier = true;  // every thread is done with this iteration's buffer before it is refilled
    } else if (depth > 0 && !async_copies[0].empty()) {
      // Before the loop: the copies of iterations 0 .. lead-1, one group each.
      std::vector<Stmt> first;
      for (int64_t s = 0; s < lead; ++s) {
        if (s < here.info.extent) first.push_back(make_block(async_copies[s]));
        first.push_back(make_async_commit());  // one group per iteration, empty past the loop's end
      }
      prologue_[here.var] = {make_block(first), pipeline_buffers};
      Stmt issue = make_if(make_var(here.var) + make_int(lead) < make_int(here.info.extent), make_block(async_copies[lead]));
      if (lead < depth - 1) {
        // A k-step of wgmma in flight: wait for iteration v's group and share it
        // (ordered before the tensor cores' reads), then refill the buffer of iteration
        // v - 2. Every thread passed this barrier only after finishing iteration v - 1,
        // whose last wait retired the instructions of v - 2: one barrier per iteration.
        pre.push_back(make_async_wait(lead - 1));
        pre.push_back(make_async_proxy_fence());
        pre.push_back(make_barrier());
        pre.push_back(issue);
        pre.push_back(make_async_commit());
      } else {
        // In the loop: issue iteration v + lead, wait for iteration v's group, share it
        // (in a wgmma stage, ordered before the tensor cores' reads of shared memory).
        pre.push_back(issue);
        pre.push_back(make_async_commit());
        pre.push_back(make_async_wait(lead));
        if (wgmma) pre.push_back(make_async_proxy_fence());
        pre.push_back(make_barrier());
        end_barrier = true;  // every thread is done with this iteration's buffer before it is refilled
      }
    }
    Stmt rest = inner(env, caches);
    if (pre.empty()) return rest;
    pre.push_back(rest);
    if (end_barrier) pre.push_back(make_barrier());
    Stmt s = make_block(pre);
    for (auto it = allocs.rbegin(); it != allocs.rend(); ++it) s = allocate_realization(it->first, it->second, s);
    return s;
  }

  // ---- cache_write scope shared: the block's output tile in shared memory ----
  std::set<std::string> output_tiles_;  // shared buffers that stand for a block's output region

  int leading_block_loops(const Ctx& c) const {
    int nb = 0;
    while (nb < static_cast<int>(c.nest.loops.size()) && is_block_axis(c.nest.loops[nb].info.axis)) ++nb;
    return nb;
  }

  void check_output_tile(const Ctx& c) const {
    const std::string& stage = c.f.name;
    if (!c.f.is_reduction()) return;  // the primitive accepts reductions only
    if (c.self.scope != MemScope::Global)
      fail("cache-write-shared-not-root", "Stage '" + stage + "' asks for a shared-memory output tile (cache_write scope shared), but it is computed inside another stage, so its result already stays on chip.",
           "Drop cache_write for it, or compute it at root.");
    const int nb = leading_block_loops(c);
    if (nb == 0)
      fail("cache-write-shared-no-block-loops", "Stage '" + stage + "' asks for a shared-memory output tile (cache_write scope shared), but none of its loops is bound to a block axis, so there is no block tile to stage.",
           "Bind the stage's outer loops to blockIdx axes (for example with tile and bind), or use cache_write scope register.");
    if (!c.s.cross_cluster_loop.empty())
      fail("cache-write-shared-reduction-across-blocks", "Stage '" + stage + "' asks for a shared-memory output tile, but its reduction loop '" +
               c.s.cross_cluster_loop + "' is spread over the blocks of a cluster, so no block tile holds finished results before the combine.",
           "Keep reduction loops inside the block (split K across blocks with rfactor instead), or use cache_write scope register.");
  }

  // The stage's loops from p (just inside its block loops) with the accumulators written
  // to a shared tile of the block's output region, then, after a barrier, the tile
  // copied to global memory by all threads: consecutive threads take consecutive
  // 16-byte chunks of a row where alignment is provable, else single elements; each
  // is guarded by the output's bounds.
  Stmt emit_output_tile(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
    const std::string& stage = c.f.name;
    std::map<std::string, int64_t> sweep;
    for (size_t q = p; q < c.nest.loops.size(); ++q) sweep[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
    const size_t dims = c.f.vars.size();
    std::vector<Expr> mn;
    std::vector<int64_t> ex, full = c.self.extent;
    for (size_t d = 0; d < dims; ++d) {
      auto r = index_range(c.orig.at(c.f.vars[d]), sweep);
      if (!r)
        fail("cache-write-shared-not-affine", "Stage '" + stage + "' asks for a shared-memory output tile, but its coordinate '" + c.f.vars[d] +
                 "' is not an affine function of its loops, so the block's output region is not known.",
             "Derive the stage's loops with split, tile and reorder only, or use cache_write scope register.");
      mn.push_back(r->min);
      ex.push_back(r->extent);
    }
    // Padding of the tile's rows against bank conflicts, keeping rows 16-byte aligned:
    // tensor-core lanes store pairs (float2) of 8 rows x 4 columns, conflict-free when
    // the row stride is 8 words mod 32; CUDA-core threads run along threadIdx.x, and the
    // next row of a warp starts X words (X threads on threadIdx.x) further when the
    // stride is X mod 32.
    int64_t bank_step = 8;
    if (c.s.tensor_core_shape.empty()) {
      bank_step = 0;
      for (const auto& l : c.nest.loops)
        if (l.info.axis == GpuAxis::ThreadX && l.info.extent < 32) bank_step = (l.info.extent + 3) / 4 * 4;
    }
    const int64_t inner = ex.back();
    int64_t pad = 0;
    if (inner % 4 == 0)
      while ((inner + pad) % 32 != bank_step % 32) pad += 4;
    Realization tile = dense(stage + "_tile", MemScope::Shared, mn, ex, static_cast<int>(pad));
    const DType t = globals_.at(c.self.buffer).dtype;
    if (tile.size * dtype_bytes(t) > 96 * 1024)
      fail("cache-write-shared-too-large", "The shared-memory output tile of stage '" + stage + "' takes " +
               std::to_string(tile.size * dtype_bytes(t)) + " bytes, more than the 96 KiB the lowering gives it next to the staged inputs.",
           "Make the block's tile smaller (its block-level split factors), or use cache_write scope register.");
    output_tiles_.insert(tile.buffer);
    Ctx ct{c.f, c.s, c.nest, tile, c.body, c.orig};
    Stmt compute = emit(ct, p, env, caches, in_thread, in_serial);

    // The copy to global memory.
    const bool vec = t == DType::f32 && inner % 4 == 0 && full.back() % 4 == 0 && (inner + pad) % 4 == 0 &&
                     provably_multiple_of(mn.back(), 4);
    const int64_t width = vec ? 4 : 1, chunks_per_row = inner / width;
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < dims; ++d) rows *= ex[d];
    const int64_t chunks = rows * chunks_per_row;
    const std::string cv = stage + "_w" + std::to_string(uid_++), lanev = stage + "_wv";
    const Expr nt = make_var(kNumThreads), e = make_var(cv) * nt + make_var("tid");
    std::vector<Expr> local(dims);
    Expr row = e / make_int(chunks_per_row);
    for (int d = static_cast<int>(dims) - 2; d >= 0; --d) {
      local[d] = d == 0 ? row : row % make_int(ex[d]);
      row = row / make_int(ex[d]);
    }
    local[dims - 1] = (e % make_int(chunks_per_row)) * make_int(width);
    std::vector<Expr> conds = {e < make_int(chunks)};
    for (size_t d = 0; d < dims; ++d) {
      const bool whole_tiles = full[d] % ex[d] == 0 && provably_multiple_of(mn[d], ex[d]);
      if (!whole_tiles) conds.push_back(mn[d] + local[d] < make_int(full[d]));
    }
    if (vec) local[dims - 1] = local[dims - 1] + make_var(lanev);
    std::vector<Expr> at(dims);
    for (size_t d = 0; d < dims; ++d) at[d] = mn[d] + local[d];
    Stmt move = make_store(c.self.buffer, flat_index(c.self, at), make_load(tile.buffer, t, {flat_index(tile, at)}));
    if (vec) move = make_for(lanev, make_int(0), make_int(4), LoopKind::Vectorized, GpuAxis::None, move);
    Stmt copy = make_for(cv, make_int(0), (make_int(chunks) + nt - make_int(1)) / nt, LoopKind::Serial, GpuAxis::None, guarded(conds, move));
    return make_allocate(tile.buffer, MemScope::Shared, t, tile.size, make_block({compute, make_barrier(), copy}));
  }

  Stmt emit(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
    if (c.s.cache_write_scope == "shared" && c.f.is_reduction() && c.self.scope == MemScope::Global && p == leading_block_loops(c))
      return emit_output_tile(c, p, env, caches, in_thread, in_serial);
    int r0 = first_reduction(c);
    if (r0 >= 0 && p == r0) return emit_reduction(c, env, caches, in_thread, in_serial);
    if (p == static_cast<int>(c.nest.loops.size())) {
      std::vector<Expr> idx;
      for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(c.orig.at(c.f.vars[d]));
      Expr value = lower_value(c.body, env, caches, c.s);
      return guarded(c.nest.guards, make_store(c.self.buffer, flat_index(c.self, idx), value));
    }
    const DerivedLoop& l = c.nest.loops[p];
    bool t = in_thread || is_thread_axis(l.info.axis);
    bool s = in_serial || (l.info.axis == GpuAxis::None);
    Stmt body = with_placements(c, p, env, caches, t, s, [&](const Env& e2, const Env& c2) {
      return emit(c, p + 1, e2, c2, t, s);
    });
    return make_loop(l, body);
  }

  // Loops p .. stop-1 of the nest, each with what is placed at it; `leaf` builds the
  // statements inside loop stop-1.
  Stmt loops_down_to(Ctx& c, int p, int stop, const Env& env, const Env& caches, bool in_thread, bool in_serial,
                     const std::function<Stmt(const Env&, const Env&)>& leaf) {
    if (p == stop) return leaf(env, caches);
    const DerivedLoop& l = c.nest.loops[p];
    bool t = in_thread || is_thread_axis(l.info.axis);
    bool s = in_serial || l.info.axis == GpuAxis::None;
    Stmt body = with_placements(c, p, env, caches, t, s, [&](const Env& e2, const Env& c2) {
      return loops_down_to(c, p + 1, stop, e2, c2, t, s, leaf);
    });
    return make_loop(l, body);
  }

  // A reduction from its first reduction loop inward: accumulators in registers over
  // the pure loops inside, initialised, updated by the reduction loops, combined
  // across threads when asked, and written out.
  Stmt emit_reduction(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
    if (!c.s.tensor_core_shape.empty()) return emit_tensor_core(c, env, caches, in_thread, in_serial);
    int r0 = first_reduction(c);
    const auto& loops = c.nest.loops;
    ReduceOp op = c.f.body->reduce_op;
    bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
    DType vt = c.f.body->args[0].type();
    if (c.f.body->args[0]->weak) vt = dtype_is_float(vt) ? DType::f32 : DType::i32;
    DType acc_t = arg ? vt : c.f.dtype;
    std::string acc = c.f.name + "_acc", acc_idx = c.f.name + "_acc_index";
    // Accumulator layout: the pure loops inside r0 that are not thread-bound.
    std::vector<const DerivedLoop*> inner_pure;
    for (size_t q = r0; q < loops.size(); ++q)
      if (!loops[q].info.reduction) inner_pure.push_back(&loops[q]);
    Expr acc_index = make_int(0);
    int64_t acc_size = 1;
    for (auto it = inner_pure.rbegin(); it != inner_pure.rend(); ++it) {
      if (is_thread_axis((*it)->info.axis)) continue;
      acc_index = acc_index + make_var((*it)->var) * make_int(acc_size);
      acc_size *= (*it)->info.extent;
    }
    auto over_inner_pure = [&](Stmt leaf) {
      for (auto it = inner_pure.rbegin(); it != inner_pure.rend(); ++it) leaf = make_loop(**it, leaf, false);
      return leaf;
    };
    Expr ident = reduction_identity(op == ReduceOp::ArgMax ? ReduceOp::Max : op == ReduceOp::ArgMin ? ReduceOp::Min : op, acc_t);
    std::vector<Stmt> init = {make_store(acc, acc_index, ident)};
    if (arg) init.push_back(make_store(acc_idx, acc_index, make_int(0, DType::i64)));
    Stmt init_nest = over_inner_pure(make_block(init));

    // The update, inside all loops from r0 inward.
    Expr flat_r;
    {
      int64_t stride = 1;
      const auto& rv = c.f.body->rvars;
      for (int i = static_cast<int>(rv.size()) - 1; i >= 0; --i) {
        Expr term = cast(DType::i64, c.orig.at(rv[i].name)) * make_int(stride, DType::i64);
        flat_r = flat_r.defined() ? flat_r + term : term;
        stride *= eval_int(rv[i].extent_expr, st_.ctx.sizes);
      }
    }
    Stmt main_nest = loops_down_to(c, r0, static_cast<int>(loops.size()), env, caches, in_thread, in_serial,
                                   [&](const Env& e2, const Env& c2) -> Stmt {
        Expr v = lower_value(c.body, e2, c2, c.s);
        Expr cur = make_load(acc, acc_t, {acc_index});
        Stmt upd;
        if (!arg) {
          Expr nv;
          switch (op) {
            case ReduceOp::Sum: nv = cur + v; break;
            case ReduceOp::Product: nv = cur * v; break;
            case ReduceOp::Max: nv = max(cur, v); break;
            default: nv = min(cur, v); break;
          }
          upd = make_store(acc, acc_index, nv);
        } else {
          Expr ci = make_load(acc_idx, DType::i64, {acc_index});
          Expr better = op == ReduceOp::ArgMax ? (v > cur) : (v < cur);
          Expr cond = better || (v == cur && flat_r < ci);
          upd = make_if(cond, make_block({make_store(acc, acc_index, v), make_store(acc_idx, acc_index, flat_r)}));
        }
        return guarded(c.nest.guards, upd);
    });

    std::vector<Stmt> seq = {init_nest, main_nest};
    // The combines: across the block's threads first, then across the cluster's blocks.
    auto loop_named = [&](const std::string& name) -> const DerivedLoop* {
      for (const auto& l : loops)
        if (!name.empty() && l.info.name == name) return &l;
      return nullptr;
    };
    const DerivedLoop* thread_loop = loop_named(c.s.cross_thread_loop);
    const DerivedLoop* cluster_loop = loop_named(c.s.cross_cluster_loop);
    auto combine_across = [&](const DerivedLoop* l, const std::string& kind, const std::string& var, const DerivedLoop* before) {
      seq.push_back(make_for(var, make_int(0), make_int(acc_size), LoopKind::Serial, GpuAxis::None,
                             make_allreduce(acc, arg ? acc_idx : "", make_var(var), op, l->info.axis, l->info.extent, kind,
                                            before ? before->info.axis : GpuAxis::None, before ? before->info.extent : 0)));
    };
    if (thread_loop) combine_across(thread_loop, c.s.cross_thread_kind, c.f.name + "_a", nullptr);
    if (cluster_loop) combine_across(cluster_loop, "cluster", c.f.name + "_c", thread_loop);
    // Write-out.
    std::vector<Expr> idx;
    for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(c.orig.at(c.f.vars[d]));
    Expr out = make_load(arg ? acc_idx : acc, arg ? DType::i64 : acc_t, {acc_index});
    std::vector<Expr> wguards;
    for (const auto& g : c.nest.guards) {
      bool uses_reduction = false;
      std::function<void(const Expr&)> scan = [&](const Expr& e) {
        if (e->op == ExprOp::Var)
          for (const auto& l : loops)
            if (l.var == e->name && l.info.reduction) uses_reduction = true;
        for (const auto& a : e->args) scan(a);
      };
      scan(g);
      if (!uses_reduction) wguards.push_back(g);
    }
    if (thread_loop) wguards.push_back(make_var(gpu_axis_name(thread_loop->info.axis)) == make_int(0));
    // Every block of the cluster holds the total: each writes its own on-chip copy,
    // and only the first writes a global result.
    if (cluster_loop && c.self.scope == MemScope::Global) wguards.push_back(make_var("blockIdx.x") == make_int(0));
    seq.push_back(over_inner_pure(guarded(wguards, make_store(c.self.buffer, flat_index(c.self, idx), out))));
    Stmt body = make_block(seq);
    if (arg) body = make_allocate(acc_idx, MemScope::Register, DType::i64, acc_size, body);
    return make_allocate(acc, MemScope::Register, acc_t, acc_size, body);
  }

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

  TensorCoreTile tensor_core_tile(const Ctx& c) const {
    const auto& loops = c.nest.loops;
    const std::string& stage = c.f.name;
    TensorCoreTile T;
    T.nl = static_cast<int>(loops.size());
    T.r0 = first_reduction(c);
    const int nl = T.nl, r0 = T.r0;
    std::vector<int> pure;
    for (int q = 0; q < nl; ++q) (loops[q].info.reduction ? T.red : pure).push_back(q);
    T.qm = pure[pure.size() - 2];
    T.qn = pure.back();
    T.qk = T.red.back();
    const int qm = T.qm, qn = T.qn, qk = T.qk;
    const std::set<int> tile = {qm, qn, qk};
    if (*tile.begin() != nl - 3 || tile.size() != 3)
      fail("tensor-core-loops-not-innermost",
           "The tensor-core loops of stage '" + stage + "' (" + loops[qm].info.name + ", " + loops[qn].info.name + ", " +
               loops[qk].info.name + ") are not its three innermost loops.",
           "Reorder the stage so that its last two pure loops and its last reduction loop come last.");
    for (const auto& l : loops) {
      if (l.info.axis == GpuAxis::ThreadX)
        fail("tensor-core-uses-thread-x", "Stage '" + stage + "' binds loop '" + l.info.name + "' to threadIdx.x, which tensor_core needs for the lanes of each warp (warpgroup).",
             "Bind the loops that pick a warp's tile to threadIdx.y and threadIdx.z.");
    }
    for (int q : tile)
      if (loops[q].info.axis != GpuAxis::None)
        fail("tensor-core-loop-bound", "Loop '" + loops[q].info.name + "' of stage '" + stage + "' is part of the tensor-core tile but is bound to " +
                 gpu_axis_name(loops[q].info.axis) + ".",
             "Leave the tile's loops serial or unrolled: each warp runs the whole tile.");
    for (int q = r0; q < nl - 3; ++q)
      if (!loops[q].info.reduction && !is_thread_axis(loops[q].info.axis))
        fail("tensor-core-extra-pure-loop", "Pure loop '" + loops[q].info.name + "' of stage '" + stage +
                 "' is inside its reduction loops but outside the tensor-core tile and not bound to a thread axis.",
             "Move it outside the reduction loops, bind it to threadIdx.y or threadIdx.z, or fold it into the tile with fuse.");
    if (!c.s.cross_thread_loop.empty() || !c.s.cross_cluster_loop.empty())
      fail("tensor-core-cross-thread", "Stage '" + stage + "' asks for both tensor cores and a cross-thread reduction.",
           "Drop cross_thread_reduce; split K across blocks with rfactor instead.");
    for (int q : tile) {
      const std::string& n = loops[q].info.name;
      bool placed = false;
      for (const auto& cr : c.s.cache_reads) placed |= cr.at_loop == n;
      for (const auto& [pname, ps] : st_.schedules) placed |= ps.location == ComputeLocation::At && ps.at_stage == stage && ps.at_loop == n;
      if (placed)
        fail("tensor-core-placement-inside-tile", "Something is computed or staged at loop '" + n + "', inside the tensor-core tile of stage '" + stage + "'.",
             "Make copies and producers at a loop outside the tile (the reduction's outer loop).");
    }
    T.M = loops[qm].info.extent;
    T.N = loops[qn].info.extent;
    T.K = loops[qk].info.extent;
    require_lowerable_tensor_core_tile(stage, c.s.tensor_core_shape, T.M, T.N, r0 < nl - 3);
    // The two factors of the product: A varies with m, B with n.
    Expr prod = c.body;
    while (prod->op == ExprOp::Cast) prod = prod->args[0];
    T.mv = loops[qm].var;
    T.nv = loops[qn].var;
    T.kv = loops[qk].var;
    T.fa = prod->args[0];
    T.fb = prod->args[1];
    if (mentions_var(T.fb, T.mv)) std::swap(T.fa, T.fb);
    if (mentions_var(T.fb, T.mv) || mentions_var(T.fa, T.nv))
      fail("tensor-core-not-matmul", "In stage '" + stage + "', a factor of the product depends on both tile loops '" + loops[qm].info.name +
               "' and '" + loops[qn].info.name + "'.",
           "Use tensor_core on C(i, j) = sum(k, A(i, k) * B(k, j)) with i and j the tile's loops.");
    // Tails of non-dividing splits: a lane's operand outside the domain is zero, and
    // its accumulators there are not written out.
    for (const auto& g : c.nest.guards)
      if (mentions_var(g, T.mv) && mentions_var(g, T.nv))
        fail("tensor-core-not-matmul", "Stage '" + stage + "' has a bound that couples its tile loops '" + loops[qm].info.name + "' and '" +
                 loops[qn].info.name + "'.",
             "Do not fuse the tile's row and column loops.");
    for (int q = r0; q < nl - 3; ++q)
      if (!loops[q].info.reduction) T.warp_loops.push_back(&loops[q]);
    return T;
  }

  // `leaf` inside the thread loops that pick a warp's (warpgroup's) tile.
  Stmt over_warps(const TensorCoreTile& T, Stmt leaf) {
    for (auto it = T.warp_loops.rbegin(); it != T.warp_loops.rend(); ++it) leaf = make_loop(**it, leaf, false);
    return leaf;
  }

  // A fragment element: its lowered value with the tail guard that zeroes it (guards
  // that mention `skip`, the other tile loop, do not apply).
  Expr tile_operand(const Ctx& c, const Expr& factor, const std::map<std::string, Expr>& at, const std::string& skip,
                    const Env& env, const Env& caches, bool round_operands = true) {
    std::vector<Expr> conds;
    for (const auto& g : c.nest.guards)
      if (!mentions_var(g, skip)) conds.push_back(substitute(g, at));
    Expr v = lower_value(substitute(factor, at), env, caches, c.s, round_operands);
    Expr cond = conjunction(conds);
    return cond.defined() ? select(cond, v, make_float(0.0)) : v;
  }

  // A sum of products on tensor cores. The stage's three innermost loops (its last two
  // pure loops m and n and its last reduction loop k) become, per warp, a grid of
  // 16 x 8 accumulator tiles updated by Mma statements; the 32 lanes of each warp run
  // on threadIdx.x. Loops between the first reduction loop and the tile are reduction
  // loops or thread loops (the warps of the block).
  Stmt emit_tensor_core(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
    if (uses_wgmma(c)) return emit_wgmma(c, env, caches, in_thread, in_serial);
    const auto& loops = c.nest.loops;
    const std::string& stage = c.f.name;
    const MmaLayout& L = mma_layout(c.s.tensor_core_shape);
    const TensorCoreTile T = tensor_core_tile(c);
    const int nl = T.nl, r0 = T.r0;
    const std::vector<int>& red = T.red;
    const int64_t M = T.M, N = T.N, K = T.K;
    if (M % L.m || N % L.n || K % L.k)
      fail("tensor-core-shape-does-not-tile", "The tile loops of stage '" + stage + "' (" + std::to_string(M) + " x " + std::to_string(N) +
               " x " + std::to_string(K) + ") do not tile by " + c.s.tensor_core_shape + ".",
           "Split so that the tile's loops are multiples of " + std::to_string(L.m) + ", " + std::to_string(L.n) + " and " + std::to_string(L.k) + ".");
    const std::string &mv = T.mv, &nv = T.nv, &kv = T.kv;
    const Expr fa = T.fa, fb = T.fb;
    const std::string acc = stage + "_acc", lane = stage + "_lane", mt = stage + "_mt", nt = stage + "_nt", kt = stage + "_kt";
    const int64_t MT = M / L.m, NT = N / L.n, KT = K / L.k, acc_size = MT * NT * 4;
    const Expr lanev = make_var(lane), group = lanev / make_int(4), quad = lanev % make_int(4);
    const Expr acc_base = (make_var(mt) * make_int(NT) + make_var(nt)) * make_int(4);
    auto lane_loop = [&](Stmt body) { return make_for(lane, make_int(0), make_int(32), LoopKind::Serial, GpuAxis::ThreadX, body); };
    auto tile_loop = [&](const std::string& v, int64_t extent, Stmt body) {
      return make_for(v, make_int(0), make_int(extent), extent <= 8 ? LoopKind::Unrolled : LoopKind::Serial, GpuAxis::None, body);
    };
    const std::string ai = stage + "_ai";
    Stmt init = over_warps(T, lane_loop(make_for(ai, make_int(0), make_int(acc_size), LoopKind::Unrolled, GpuAxis::None,
                                              make_store(acc, make_var(ai), make_float(0.0)))));

    Stmt main_nest = loops_down_to(c, r0, nl - 3, env, caches, in_thread, in_serial, [&](const Env& e2, const Env& c2) -> Stmt {
        // Each fragment element: its lowered value and the tail guard that zeroes it.
        struct Operand {
          Expr value, cond;
        };
        auto operand = [&](const Expr& factor, const std::map<std::string, Expr>& at, const std::string& skip) {
          std::vector<Expr> conds;
          for (const auto& g : c.nest.guards)
            if (!mentions_var(g, skip)) conds.push_back(substitute(g, at));
          return Operand{lower_value(substitute(factor, at), e2, c2, c.s), conjunction(conds)};
        };
        std::vector<Operand> a_ops, b_ops;
        for (int i = 0; i < L.a_count; ++i) {
          Expr m = make_var(mt) * make_int(L.m) + group + make_int(L.a_row[i]);
          Expr k = make_var(kt) * make_int(L.k) + quad * make_int(L.k_step) + make_int(L.a_k[i]);
          a_ops.push_back(operand(fa, {{mv, m}, {kv, k}}, nv));
        }
        for (int i = 0; i < L.b_count; ++i) {
          Expr k = make_var(kt) * make_int(L.k) + quad * make_int(L.k_step) + make_int(L.b_k[i]);
          Expr n = make_var(nt) * make_int(L.n) + group;
          b_ops.push_back(operand(fb, {{kv, k}, {nv, n}}, mv));
        }
        // An unguarded fragment read from shared memory in aligned 16-byte rows is loaded
        // with ldmatrix once per k step and tile row (A) or column (B); the Mma reads it
        // from registers. Anything else keeps its scalar loads.
        auto is_shared = [&](const std::string& b) {
          for (const auto& [src, r] : c2)
            if (r.buffer == b) return r.scope == MemScope::Shared;
          return false;
        };
        auto plan_for = [&](const std::vector<Operand>& o) -> std::optional<LdMatrixPlan> {
          std::vector<Expr> values;
          for (const auto& x : o) {
            if (x.cond.defined()) return std::nullopt;
            values.push_back(x.value);
          }
          return plan_ldmatrix(values, lane, is_shared);
        };
        const std::optional<LdMatrixPlan> pa = plan_for(a_ops), pb = plan_for(b_ops);
        const std::string frag_a = stage + "_fa", frag_b = stage + "_fb";
        std::vector<Expr> ops;
        auto add_ops = [&](const std::vector<Operand>& o, const std::optional<LdMatrixPlan>& plan, const std::string& frag,
                           const std::string& tile_var) {
          const int64_t count = static_cast<int64_t>(o.size());
          for (int64_t i = 0; i < count; ++i) {
            Expr v = plan ? read_from_fragment(o[i].value, *plan, frag, make_var(tile_var) * make_int(count) + make_int(i)) : o[i].value;
            ops.push_back(o[i].cond.defined() ? select(o[i].cond, v, make_float(0.0)) : v);
          }
        };
        add_ops(a_ops, pa, frag_a, mt);
        add_ops(b_ops, pb, frag_b, nt);
        Stmt mma = make_mma(c.s.tensor_core_shape, c.s.precision, acc, acc_base, ops);
        std::vector<Stmt> step;
        if (pa)
          step.push_back(tile_loop(mt, MT, make_ldmatrix(frag_a, make_var(mt) * make_int(L.a_count), pa->source, pa->row_address,
                                                         pa->matrices, pa->transpose)));
        if (pb)
          step.push_back(tile_loop(nt, NT, make_ldmatrix(frag_b, make_var(nt) * make_int(L.b_count), pb->source, pb->row_address,
                                                         pb->matrices, pb->transpose)));
        step.push_back(tile_loop(mt, MT, tile_loop(nt, NT, mma)));
        Stmt body = step.size() == 1 ? step[0] : make_block(step);
        if (pb) body = make_allocate(frag_b, MemScope::Register, pb->dtype, NT * L.b_count, body);
        if (pa) body = make_allocate(frag_a, MemScope::Register, pa->dtype, MT * L.a_count, body);
        return lane_loop(tile_loop(kt, KT, body));
    });

    // Write-out: each lane stores its four accumulators of every tile.
    const std::string j = stage + "_aj";
    Expr jv = make_var(j);
    Expr row = make_var(mt) * make_int(L.m) + group + select(jv < make_int(2), make_int(L.c_row[0]), make_int(L.c_row[2]));
    Expr col = make_var(nt) * make_int(L.n) + quad * make_int(2) + jv % make_int(2);
    std::vector<Expr> idx;
    for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(substitute(c.orig.at(c.f.vars[d]), {{mv, row}, {nv, col}}));
    std::vector<Expr> wguards;
    for (const auto& g : c.nest.guards)
      if (std::none_of(red.begin(), red.end(), [&](int q) { return mentions_var(g, loops[q].var); }))
        wguards.push_back(substitute(g, {{mv, row}, {nv, col}}));
    Stmt write = guarded(wguards, make_store(c.self.buffer, flat_index(c.self, idx), make_load(acc, DType::f32, {acc_base + jv})));
    Stmt per_tile = make_for(j, make_int(0), make_int(4), LoopKind::Unrolled, GpuAxis::None, write);
    if (output_tiles_.count(c.self.buffer)) {
      // Into the block's shared output tile, which holds the tails too: no guards, and
      // each lane's two adjacent accumulators of a row as one pair (float2).
      const std::string jr = stage + "_ar", jc = stage + "_ac";
      Expr trow = make_var(mt) * make_int(L.m) + group + make_var(jr) * make_int(L.c_row[2] - L.c_row[0]) + make_int(L.c_row[0]);
      Expr tcol = make_var(nt) * make_int(L.n) + quad * make_int(2) + make_var(jc);
      std::vector<Expr> tidx;
      for (size_t d = 0; d < c.f.vars.size(); ++d) tidx.push_back(substitute(c.orig.at(c.f.vars[d]), {{mv, trow}, {nv, tcol}}));
      Stmt pair = make_store(c.self.buffer, flat_index(c.self, tidx), make_load(acc, DType::f32, {acc_base + make_var(jr) * make_int(2) + make_var(jc)}));
      per_tile = make_for(jr, make_int(0), make_int(2), LoopKind::Unrolled, GpuAxis::None,
                          make_for(jc, make_int(0), make_int(2), LoopKind::Vectorized, GpuAxis::None, pair));
    }
    Stmt write_nest = over_warps(T, lane_loop(tile_loop(mt, MT, tile_loop(nt, NT, per_tile))));
    return make_allocate(acc, MemScope::Register, DType::f32, acc_size, make_block({init, main_nest, write_nest}));
  }

  static bool uses_wgmma(const Ctx& c) { return c.s.tensor_core_shape == "m64nNk8"; }

  // Groups of wgmma instructions a k-step leaves in flight: one when every staged copy
  // of the stage is made at its pipelined reduction loop, at least 3 buffers deep (the
  // copies then run depth - 2 iterations ahead, so that they never refill the buffer that
  // the k-step in flight reads); otherwise none (each k-step waits for its own).
  int wgmma_groups_in_flight(const Ctx& c) const {
    if (!uses_wgmma(c) || c.s.pipeline_depth < 3 || c.s.pipeline_bulk || c.s.cache_reads.empty()) return 0;
    for (const auto& cr : c.s.cache_reads)
      if (cr.at_loop != c.s.pipeline_loop) return 0;
    int reductions = 0;
    bool pipelined_reduction = false;
    for (const auto& l : c.nest.loops) {
      reductions += l.info.reduction;
      pipelined_reduction |= l.info.name == c.s.pipeline_loop && l.info.reduction;
    }
    return pipelined_reduction && reductions == 2 ? 1 : 0;  // the pipelined loop and the tile's k loop
  }

  // `s` with the If whose condition is `cond` (the same expression object) replaced by
  // its then-branch or its else-branch.
  static Stmt take_branch(const Stmt& s, const Expr& cond, bool then_branch) {
    if (s->kind == StmtKind::If && s->cond.get() == cond.get()) return then_branch ? s->body[0] : s->body[1];
    auto n = std::make_shared<StmtNode>(*s);
    for (auto& c : n->body) c = take_branch(c, cond, then_branch);
    return n;
  }

  // The loop of `var` in `s` run two iterations per trip: its body for an even iteration
  // (the If on `parity` takes its then-branch) and for the odd one after it (the
  // else-branch), and an even last iteration after the loop when the extent is odd.
  static Stmt unroll_pairs(const Stmt& s, const std::string& var, const Expr& parity) {
    if (s->kind != StmtKind::For || s->var != var) {
      auto n = std::make_shared<StmtNode>(*s);
      for (auto& c : n->body) c = unroll_pairs(c, var, parity);
      return n;
    }
    int64_t extent = 0;
    if (!is_const_int(s->extent, &extent))
      fail("lowering-internal", "The pipelined loop '" + var + "' of a wgmma stage has no constant extent.", "Report this schedule.");
    const std::string pv = var + "_pair";
    auto iteration = [&](bool even, const Expr& at) {
      return map_stmt_exprs(take_branch(s->body[0], parity, even), [&](const Expr& e) { return substitute(e, {{var, at}}); });
    };
    Stmt pairs = make_for(pv, make_int(0), make_int(extent / 2), LoopKind::Serial, GpuAxis::None,
                          make_block({iteration(true, make_var(pv) * make_int(2)),
                                      iteration(false, make_var(pv) * make_int(2) + make_int(1))}));
    if (extent % 2 == 0) return pairs;
    return make_block({pairs, iteration(true, make_int(extent - 1))});
  }

  // A sum of products on warpgroup tensor cores (wgmma.mma_async m64nNk8, tf32;
  // codegen/wgmma_layout.h). The tile's m loop is split into 64-row parts, each one
  // instruction per k8 step over all N columns of the n loop; the 128 threads of each
  // warpgroup run on threadIdx.x, the thread loops between the first reduction loop and
  // the tile pick a warpgroup's tile. A (the factor that varies with m) is loaded into
  // registers; B (the factor that varies with n) is read by the tensor cores from its
  // shared copy: K-major 32-float rows with the 128-byte swizzle. With a k-step in
  // flight (wgmma_groups_in_flight) the fragments are double-buffered by the parity of
  // the reduction's iteration, and each k-step holds the other buffer until its wait.
  Stmt emit_wgmma(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
    const auto& loops = c.nest.loops;
    const std::string& stage = c.f.name;
    const TensorCoreTile T = tensor_core_tile(c);
    if (T.M % kWgmmaM || T.N % 8 || T.N > kWgmmaMaxN || T.K % kWgmmaK)
      fail("tensor-core-shape-does-not-tile", "The tile loops of stage '" + stage + "' (" + std::to_string(T.M) + " x " +
               std::to_string(T.N) + " x " + std::to_string(T.K) + ") do not tile by m64nNk8.",
           "Split so that the tile's m loop is a multiple of 64, its n loop a multiple of 8 up to 256 and its k loop a multiple of 8.");
    if (c.s.precision != "tf32")
      fail("tensor-core-shape-precision", "Stage '" + stage + "' uses m64nNk8 with " + c.s.precision + " operands.",
           "Use m64nNk8 with tf32 operands.");
    const int64_t MT = T.M / kWgmmaM, KT = T.K / kWgmmaK, NA = T.N / 2, per_step = MT * KT * kWgmmaAElements;
    const int inflight = wgmma_groups_in_flight(c);
    const std::string acc = stage + "_acc", lane = stage + "_lane", frag = stage + "_fa";
    const Expr lanev = make_var(lane), warp = lanev / make_int(32), group = (lanev % make_int(32)) / make_int(4),
               quad = lanev % make_int(4);
    auto lane_loop = [&](Stmt body) {
      return make_for(lane, make_int(0), make_int(kWgmmaThreads), LoopKind::Serial, GpuAxis::ThreadX, body);
    };
    const std::string ai = stage + "_ai";
    Stmt init = over_warps(T, lane_loop(make_for(ai, make_int(0), make_int(MT * NA), LoopKind::Unrolled, GpuAxis::None,
                                          make_store(acc, make_var(ai), make_float(0.0)))));
    // With a k-step in flight, the parity of the pipelined reduction loop's iteration
    // picks the fragment buffer.
    std::string pipelined_var;
    Expr parity;
    for (const auto& l : loops)
      if (inflight && l.info.name == c.s.pipeline_loop) {
        pipelined_var = l.var;
        parity = make_var(l.var) % make_int(2) == make_int(0);
      }
    Stmt main_nest = loops_down_to(c, T.r0, T.nl - 3, env, caches, in_thread, in_serial, [&](const Env& e2, const Env& c2) -> Stmt {
      const auto [b_buffer, b_start] = wgmma_b_operand(c, T, c2);
      auto step = [&](int parity) {
        std::vector<Stmt> s;
        const int64_t base = parity * per_step;
        auto frag_index = [&](int64_t mt, int64_t kt, int i) { return base + (mt * KT + kt) * kWgmmaAElements + i; };
        for (int64_t mt = 0; mt < MT; ++mt)
          for (int64_t kt = 0; kt < KT; ++kt)
            for (int i = 0; i < kWgmmaAElements; ++i) {
              const WgmmaElement e = wgmma_a_element(0, i);  // the offsets of element i from thread 0's row and column
              Expr m = make_int(mt * kWgmmaM + e.row) + warp * make_int(16) + group;
              Expr k = make_int(kt * kWgmmaK + e.col) + quad;
              // f32 bits: the tensor core truncates A to tf32, as it does B.
              s.push_back(make_store(frag, make_int(frag_index(mt, kt, i)),
                                     tile_operand(c, T.fa, {{T.mv, m}, {T.kv, k}}, T.nv, e2, c2, false)));
            }
        s.push_back(make_wgmma_fence());
        for (int64_t mt = 0; mt < MT; ++mt)
          for (int64_t kt = 0; kt < KT; ++kt) {
            std::vector<Expr> a;
            for (int i = 0; i < kWgmmaAElements; ++i) a.push_back(make_load(frag, DType::f32, {make_int(frag_index(mt, kt, i))}));
            s.push_back(make_wgmma("tf32", T.N, acc, make_int(mt * NA), a, b_buffer, b_start + make_int(kt * kWgmmaK)));
          }
        s.push_back(make_wgmma_commit());
        s.push_back(inflight ? make_wgmma_wait(1, frag, make_int((1 - parity) * per_step), per_step) : make_wgmma_wait(0));
        return make_block(s);
      };
      Stmt body = inflight ? make_if(parity, step(0), step(1)) : step(0);
      return lane_loop(body);
    });
    // Each fragment buffer gets its own copy of the k-step: no branch merges accumulators
    // that a wgmma still writes.
    if (inflight) main_nest = unroll_pairs(main_nest, pipelined_var, parity);
    Stmt drain = over_warps(T, lane_loop(make_wgmma_wait(0)));

    // Write-out: each thread stores its N/2 accumulators of every 64-row part, at the
    // rows and columns of codegen/wgmma_layout.h (the interpreter places the results by
    // that layout, so a difference here shows as a wrong tile).
    const std::string mtv = stage + "_mt", j = stage + "_aj";
    const Expr jv = make_var(j);
    Expr row = make_var(mtv) * make_int(kWgmmaM) + warp * make_int(16) + group + ((jv / make_int(2)) % make_int(2)) * make_int(8);
    Expr col = (jv / make_int(4)) * make_int(8) + quad * make_int(2) + jv % make_int(2);
    std::vector<Expr> idx;
    for (size_t d = 0; d < c.f.vars.size(); ++d) idx.push_back(substitute(c.orig.at(c.f.vars[d]), {{T.mv, row}, {T.nv, col}}));
    std::vector<Expr> wguards;
    if (!output_tiles_.count(c.self.buffer))
      for (const auto& g : c.nest.guards)
        if (std::none_of(T.red.begin(), T.red.end(), [&](int q) { return mentions_var(g, loops[q].var); }))
          wguards.push_back(substitute(g, {{T.mv, row}, {T.nv, col}}));
    Stmt write = guarded(wguards, make_store(c.self.buffer, flat_index(c.self, idx),
                                             make_load(acc, DType::f32, {make_var(mtv) * make_int(NA) + jv})));
    Stmt write_nest = over_warps(T, lane_loop(make_for(mtv, make_int(0), make_int(MT), LoopKind::Unrolled, GpuAxis::None,
                                                make_for(j, make_int(0), make_int(NA), LoopKind::Unrolled, GpuAxis::None, write))));
    Stmt body = make_block({init, main_nest, drain, write_nest});
    body = make_allocate(frag, MemScope::Register, DType::f32, (inflight ? 2 : 1) * per_step, body);
    return make_allocate(acc, MemScope::Register, DType::f32, MT * NA, body);
  }

  // The shared buffer and descriptor start (element index, k = 0, n = 0) of a wgmma's B
  // operand: the factor that varies with n must read a swizzled shared copy whose rows
  // are 32 four-byte elements along k (K-major, the 128-byte swizzle), n stepping rows
  // and k stepping columns one by one, the tile's first row at a 1024-byte boundary.
  std::pair<std::string, Expr> wgmma_b_operand(const Ctx& c, const TensorCoreTile& T, const Env& caches) {
    const std::string& stage = c.f.name;
    Expr fb = T.fb;
    while (fb->op == ExprOp::Cast) fb = fb->args[0];
    auto it = fb->op == ExprOp::Load ? caches.find(fb->name) : caches.end();
    if (it == caches.end() || it->second.scope != MemScope::Shared)
      fail("wgmma-b-not-shared", "Stage '" + stage + "' uses m64nNk8, but its operand " + to_string(T.fb) +
               " is not read from a shared copy at the tile.",
           "Stage it with cache_read scope shared (swizzle true) at the reduction loop outside the tile.");
    const Realization& r = it->second;
    const size_t dims = fb->args.size();
    auto coefficient = [](const Expr& e, const std::string& v) -> std::optional<int64_t> {
      auto f = linear_form(e, true);
      if (!f) return std::nullopt;
      for (const auto& [key, atom] : f->atoms)
        if (mentions_var(atom, v)) return std::nullopt;
      auto k = f->coeff.find(v);
      return k == f->coeff.end() ? 0 : k->second;
    };
    bool layout = dims >= 2 && fb.type() == DType::f32 && r.swizzle_chunk == 4 && r.swizzle_rows == 8 &&
                  r.extent.back() * 4 == kWgmmaSwizzleRowBytes && r.stride[dims - 2] == r.extent.back() &&
                  r.extent[dims - 2] % 8 == 0 && r.extent[dims - 2] >= T.N;
    for (size_t d = 0; layout && d < dims; ++d) {
      auto cn = coefficient(fb->args[d], T.nv), ck = coefficient(fb->args[d], T.kv);
      layout = cn && ck && *cn == (d + 2 == dims ? 1 : 0) && *ck == (d + 1 == dims ? 1 : 0);
    }
    if (!layout)
      fail("wgmma-b-layout", "Stage '" + stage + "' uses m64nNk8, but the shared copy '" + r.buffer + "' of its operand " + to_string(T.fb) +
               " is not K-major rows of 32 f32 elements with the 128-byte swizzle (n along rows, k along columns).",
           "Stage the operand with cache_read swizzle true over a region of 32 elements along the reduction (split k by 32 "
           "outside the tile's k loop), its rows stepping with the tile's n loop, and order the tile so that this operand "
           "varies with the n loop.");
    Realization logical = r;
    logical.swizzle_chunk = logical.swizzle_rows = 0;
    std::vector<Expr> args;
    for (const auto& a : fb->args) args.push_back(substitute(a, {{T.nv, make_int(0)}, {T.kv, make_int(0)}}));
    Expr start = flat_index(logical, args);
    if (!provably_multiple_of(start, kWgmmaSwizzleAtomBytes / 4))
      fail("wgmma-b-alignment", "Stage '" + stage + "' uses m64nNk8, but the tile's first row of '" + r.buffer +
               "' is not provably 1024 bytes from the copy's start (" + to_string(start) + ").",
           "Make the staged region start at the tile's first row: stage at the loop just outside the tile.");
    return {r.buffer, start};
  }
};

}  // namespace

std::vector<Kernel> build_kernels(const ScheduleState& state, const std::vector<BufferSpec>& globals) {
  KernelBuilder b(state, globals);
  std::vector<Kernel> out;
  for (const auto& f : state.stages) {
    const StageSchedule& s = state.schedules.at(f->name);
    bool output = state.is_output(f->name);
    if (s.location != ComputeLocation::Root && !s.l2_hints.empty())
      fail("l2-hint-not-root", "Stage '" + f->name + "' has an l2_hint but is not computed at root, so it has no kernel of its own.",
           "Give the hint to the root stage of the kernel that computes it.");
    if (s.location == ComputeLocation::Root || output) {
      if (output && s.location != ComputeLocation::Root)
        fail("output-not-root", "Output stage '" + f->name + "' must be computed at root.", "Remove compute_at/compute_inline for it.");
      out.push_back(b.build(*f, static_cast<int>(out.size())));
    }
  }
  return out;
}

}  // namespace cusched
