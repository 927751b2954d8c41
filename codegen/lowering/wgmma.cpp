// tensor_core m64nNk8 and m64nNk16: a sum of products on warpgroup-wide wgmma.mma_async
// tensor-core instructions (tf32 k8, bf16 or f16 k16), A from registers (one ldmatrix per
// tf32 fragment where its copy allows) and B from a
// swizzled shared copy (cache_read swizzle),
// with a k-step left in flight when the copies are pipelined deeply enough (pipeline);
// in 3xtf32, three TF32 products of the operands' high and low parts per k-step.
#include <algorithm>

#include "codegen/linear_form.h"
#include "codegen/lowering/kernel_builder.h"
#include "codegen/passes/ldmatrix_plan.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

namespace {

// `s` with the If whose condition is `cond` (the same expression object) replaced by
// its then-branch or its else-branch.
Stmt take_branch(const Stmt& s, const Expr& cond, bool then_branch) {
  if (s->kind == StmtKind::If && s->cond.get() == cond.get()) return then_branch ? s->body[0] : s->body[1];
  auto n = std::make_shared<StmtNode>(*s);
  for (auto& c : n->body) c = take_branch(c, cond, then_branch);
  return n;
}

// The loop of `var` in `s` run two iterations per trip: its body for an even iteration
// (the If on `parity` takes its then-branch) and for the odd one after it (the
// else-branch), and an even last iteration after the loop when the extent is odd.
Stmt unroll_pairs(const Stmt& s, const std::string& var, const Expr& parity) {
  if (s->kind != StmtKind::For || s->var != var) {
    auto n = std::make_shared<StmtNode>(*s);
    for (auto& c : n->body) c = unroll_pairs(c, var, parity);
    return n;
  }
  int64_t extent = 0;
  if (!is_const_int(s->extent, &extent))
    fail("lowering-internal", "The pipelined loop '" + var + "' of a wgmma stage has no constant extent.",
         "Report this schedule.");
  const std::string pv = var + "_pair";
  auto iteration = [&](bool even, const Expr& at) {
    return map_stmt_exprs(take_branch(s->body[0], parity, even),
                          [&](const Expr& e) { return substitute(e, {{var, at}}); });
  };
  Stmt pairs = make_for(pv, make_int(0), make_int(extent / 2), LoopKind::Serial, GpuAxis::None,
                        make_block({iteration(true, make_var(pv) * make_int(2)),
                                    iteration(false, make_var(pv) * make_int(2) + make_int(1))}));
  if (extent % 2 == 0) return pairs;
  return make_block({pairs, iteration(true, make_int(extent - 1))});
}

// The high and low TF32 parts of x: hi = x rounded to TF32, lo = (x - hi) rounded, given
// the expression that reads hi back (or computes it again).
std::pair<Expr, Expr> tf32_parts(const Expr& x, const Expr& hi_of_x) {
  return {make_call("round_tf32", {x}, DType::f32), make_call("round_tf32", {x - hi_of_x}, DType::f32)};
}

}  // namespace

// 3xtf32: the k-step's B tile (`elements` f32 from `start` of the swizzled copy `b`) split
// into its high and low TF32 parts, stored at `slot` of the buffers `hi` and `lo` in the
// same swizzled layout, by all threads of the block (`tid` of `threads`), four adjacent
// elements per thread at a time (float4 accesses) where the tile divides into them. The
// barrier before it lets every warpgroup finish the k-step that read the slot before; the
// one after publishes the parts to the tensor cores (after the async-proxy fence).
Stmt KernelBuilder::split_wgmma_b_tile(const std::string& b, const Expr& start, int64_t elements, const std::string& hi,
                                       const std::string& lo, const Expr& slot, const Expr& tid, int64_t threads) {
  const int64_t lanes = elements % (4 * threads) == 0 ? 4 : 1;
  const std::string u = hi + "_u" + std::to_string(uid_++), v = u + "v";
  Expr e = (make_var(u) * make_int(threads) + tid) * make_int(lanes);
  if (lanes > 1) e = e + make_var(v);
  const Expr x = make_load(b, DType::f32, {start + e});
  const auto [h, l] = tf32_parts(x, make_call("round_tf32", {x}, DType::f32));
  // Each part is its own loop of one store, so that both read and write four elements at once.
  auto part = [&](const std::string& buffer, const Expr& value) {
    Stmt one = make_store(buffer, slot + e, value);
    if (lanes > 1) one = make_for(v, make_int(0), make_int(lanes), LoopKind::Vectorized, GpuAxis::None, one);
    return one;
  };
  Stmt both = make_block({part(hi, h), part(lo, l)});
  if (elements % (lanes * threads)) both = make_if(e < make_int(elements), both);
  return make_block({make_barrier(),
                     make_for(u, make_int(0), make_int((elements + lanes * threads - 1) / (lanes * threads)),
                              LoopKind::Serial, GpuAxis::None, both),
                     make_async_proxy_fence(), make_barrier()});
}

// Groups of wgmma instructions a k-step leaves in flight: one when every staged copy
// of the stage is made at its pipelined reduction loop, at least 3 buffers deep (the
// copies then run depth - 2 iterations ahead, so that they never refill the buffer that
// the k-step in flight reads); otherwise none (each k-step waits for its own).
int KernelBuilder::wgmma_groups_in_flight(const Ctx& c) const {
  if (!uses_wgmma(c) || c.s.pipeline_depth < 3 || c.s.pipeline_engine == CopyEngine::Bulk || c.s.cache_reads.empty())
    return 0;
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

// One ldmatrix (four 8 x 4 matrices of 32-bit words) for the TF32 A fragment of the 64-row
// part `mt` and k8 step `kt`, into `frag` from `at`, where its four elements read a shared
// copy unguarded in 16-byte aligned rows along k (plan_ldmatrix: the copy K-major, such
// as a convolution's data copied channels last); a null statement otherwise (the caller
// keeps one load per element). The fragment's rows are planned over a warp's lane
// (group and quad) with the warp of the warpgroup as a term of its own, then read with
// the warpgroup's lane.
Stmt KernelBuilder::a_fragment_ldmatrix(const Ctx& c, const TensorCoreTile& T, const Env& env, const Env& caches,
                                        int64_t mt, int64_t kt, const std::string& frag, int64_t at) {
  const std::string stage = c.f.name, lane = stage + "_lane", warp_lane = stage + "_wl", warp = stage + "_wv";
  const Expr wl = make_var(warp_lane), wv = make_var(warp);
  std::vector<Expr> values;
  for (int i = 0; i < kWgmmaAElements; ++i) {
    const WgmmaElement e = wgmma_a_element(0, i, Precision::tf32);
    const Expr m = make_int(mt * kWgmmaM + e.row) + wv * make_int(16) + wl / make_int(4);
    const Expr k = make_int(kt * kWgmmaK + e.col) + wl % make_int(4);
    const TileOperand a = tile_operand(c, T.fa, {{T.mv, m}, {T.kv, k}}, T.nv, T.mv, T.kv, env, caches, false);
    if (a.cond.defined()) return Stmt();
    values.push_back(a.value);
  }
  const auto plan = plan_ldmatrix(values, warp_lane, [&](const std::string& b) { return is_shared_copy(caches, b); });
  if (!plan || plan->transpose || plan->matrices != kWgmmaAElements) return Stmt();
  const Expr lanev = make_var(lane);
  const Expr row = substitute(plan->row_address, {{warp_lane, lanev % make_int(32)}, {warp, lanev / make_int(32)}});
  return make_ldmatrix(frag, make_int(at), plan->source, row, plan->matrices, false);
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
Stmt KernelBuilder::emit_wgmma(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
  const auto& loops = c.nest.loops;
  const std::string& stage = c.f.name;
  const TensorCoreTile T = tensor_core_tile(c);
  // tf32 and 3xtf32's parts: k8 steps of four A elements per thread; bf16, f16: k16 steps of eight.
  const Precision operands = c.s.precision == Precision::x3tf32 ? Precision::tf32 : c.s.precision;
  const int64_t KS = wgmma_k(operands), AE = wgmma_a_elements(operands);
  const DType fragment = wgmma_operand_type(operands);
  if (T.M % kWgmmaM || T.N % 8 || T.N > kWgmmaMaxN || T.K % KS)
    fail("tensor-core-shape-does-not-tile",
         "The tile loops of stage '" + stage + "' (" + std::to_string(T.M) + " x " + std::to_string(T.N) + " x " +
             std::to_string(T.K) + ") do not tile by " + c.s.tensor_core_shape + ".",
         "Split so that the tile's m loop is a multiple of 64, its n loop a multiple of 8 up to 256 and its k loop a "
         "multiple of " +
             std::to_string(KS) + ".");
  const bool split = c.s.precision == Precision::x3tf32;
  // A's fragment of a k-step: its elements, and in 3xtf32 their low parts after them.
  const int64_t MT = T.M / kWgmmaM, KT = T.K / KS, NA = T.N / 2, per_part = MT * KT * AE,
                per_step = per_part * (split ? 2 : 1);
  const int inflight = wgmma_groups_in_flight(c);
  const std::string acc = stage + "_acc", lane = stage + "_lane", frag = stage + "_fa";
  const Expr lanev = make_var(lane), warp = lanev / make_int(32), group = (lanev % make_int(32)) / make_int(4),
             quad = lanev % make_int(4);
  // 3xtf32: B's parts, one k-step's tile per fragment buffer, in the block's threads, which
  // are the warpgroups of the tile (the rule wgmma-3xtf32-threads).
  const std::string b_hi = stage + "_bhi", b_lo = stage + "_blo";
  const int64_t b_tile = T.N * (kWgmmaSwizzleRowBytes / 4);
  int64_t threads = kWgmmaThreads;
  Expr tid = lanev;
  if (split) {
    Expr group_index = make_int(0);
    for (const DerivedLoop* l : T.warp_loops)
      if (is_thread_axis(l->info.axis)) {
        group_index = group_index * make_int(l->info.extent) + make_var(l->var);
        threads *= l->info.extent;
      }
    tid = lanev + group_index * make_int(kWgmmaThreads);
  }
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
  Stmt main_nest =
      loops_down_to(c, T.r0, T.nl - 3, env, caches, in_thread, in_serial, [&](const Env& e2, const Env& c2) -> Stmt {
        const auto [b_buffer, b_start] = wgmma_b_operand(c, T, c2);
        auto step = [&](int parity) {
          std::vector<Stmt> s;
          const int64_t base = parity * per_step;
          auto frag_index = [&](int64_t mt, int64_t kt, int i) { return base + (mt * KT + kt) * AE + i; };
          const Expr slot = make_int(parity * b_tile);
          if (split) s.push_back(split_wgmma_b_tile(b_buffer, b_start, b_tile, b_hi, b_lo, slot, tid, threads));
          for (int64_t mt = 0; mt < MT; ++mt)
            for (int64_t kt = 0; kt < KT; ++kt) {
              if (!split && operands == Precision::tf32)
                if (Stmt load = a_fragment_ldmatrix(c, T, e2, c2, mt, kt, frag, frag_index(mt, kt, 0))) {
                  s.push_back(load);
                  continue;
                }
              for (int i = 0; i < AE; ++i) {
                // the offsets of element i from thread 0's row and column (the quad steps k by 1 in
                // k8, by 2 in k16)
                const WgmmaElement e = wgmma_a_element(0, i, operands);
                Expr m = make_int(mt * kWgmmaM + e.row) + warp * make_int(16) + group;
                Expr k = make_int(kt * KS + e.col) + quad * make_int(KS / kWgmmaK);
                // f32 bits: the tensor core truncates A to tf32, as it does B.
                const Expr a = tile_operand(c, T.fa, {{T.mv, m}, {T.kv, k}}, T.nv, T.mv, T.kv, e2, c2, false).guarded();
                const int64_t at = frag_index(mt, kt, i);
                if (!split) {
                  s.push_back(make_store(frag, make_int(at), a));
                  continue;
                }
                const auto [hi, lo] = tf32_parts(a, make_load(frag, DType::f32, {make_int(at)}));
                s.push_back(make_store(frag, make_int(at), hi));
                s.push_back(make_store(frag, make_int(at + per_part), lo));
              }
            }
          s.push_back(make_wgmma_fence());
          for (int64_t mt = 0; mt < MT; ++mt)
            for (int64_t kt = 0; kt < KT; ++kt) {
              auto a_part = [&](int64_t offset) {
                std::vector<Expr> a;
                for (int i = 0; i < AE; ++i)
                  a.push_back(make_load(frag, fragment, {make_int(frag_index(mt, kt, i) + offset)}));
                return a;
              };
              const Expr k_at = make_int(kt * KS);
              auto product = [&](std::vector<Expr> a, const std::string& b, const Expr& b_at) {
                s.push_back(make_wgmma(operands, T.N, acc, make_int(mt * NA), std::move(a), b, b_at + k_at));
              };
              if (!split) {
                product(a_part(0), b_buffer, b_start);
                continue;
              }
              // The small products first: A's low part by B's high, A's high by B's low, then the high parts.
              product(a_part(per_part), b_hi, slot);
              product(a_part(0), b_lo, slot);
              product(a_part(0), b_hi, slot);
            }
          s.push_back(make_wgmma_commit());
          s.push_back(inflight ? make_wgmma_wait(1, frag, make_int((1 - parity) * per_step), per_step)
                               : make_wgmma_wait(0));
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
  Expr row = make_var(mtv) * make_int(kWgmmaM) + warp * make_int(16) + group +
             ((jv / make_int(2)) % make_int(2)) * make_int(8);
  Expr col = (jv / make_int(4)) * make_int(8) + quad * make_int(2) + jv % make_int(2);
  std::vector<Expr> idx;
  for (size_t d = 0; d < c.f.vars.size(); ++d)
    idx.push_back(substitute(c.orig.at(c.f.vars[d]), {{T.mv, row}, {T.nv, col}}));
  std::vector<Expr> wguards;
  if (!output_tiles_.count(c.self.buffer))
    for (const auto& g : c.nest.guards)
      if (std::none_of(T.red.begin(), T.red.end(), [&](int q) { return mentions_var(g, loops[q].var); }))
        wguards.push_back(substitute(g, {{T.mv, row}, {T.nv, col}}));
  Stmt write = guarded(wguards, store_result(c, idx, make_load(acc, DType::f32, {make_var(mtv) * make_int(NA) + jv})));
  Stmt write_nest = over_warps(
      T, lane_loop(make_for(mtv, make_int(0), make_int(MT), LoopKind::Unrolled, GpuAxis::None,
                            make_for(j, make_int(0), make_int(NA), LoopKind::Unrolled, GpuAxis::None, write))));
  Stmt body = make_block({init, main_nest, drain, write_nest});
  body = make_allocate(frag, MemScope::Register, fragment, (inflight ? 2 : 1) * per_step, body);
  if (split)
    for (const std::string& part : {b_lo, b_hi})
      body = make_aligned_allocate(part, MemScope::Shared, DType::f32, (inflight ? 2 : 1) * b_tile,
                                   kWgmmaSwizzleAtomBytes, body);
  return make_allocate(acc, MemScope::Register, DType::f32, MT * NA, body);
}

// The shared buffer and descriptor start (element index, k = 0, n = 0) of a wgmma's B
// operand: the factor that varies with n must read a swizzled shared copy whose rows
// are 32 four-byte elements along k (K-major, the 128-byte swizzle), n stepping rows
// and k stepping columns one by one, the tile's first row at a 1024-byte boundary.
std::pair<std::string, Expr> KernelBuilder::wgmma_b_operand(const Ctx& c, const TensorCoreTile& T, const Env& caches) {
  const std::string& stage = c.f.name;
  Expr fb = T.fb;
  while (fb->op == ExprOp::Cast) fb = fb->args[0];
  auto it = fb->op == ExprOp::Load ? caches.find(fb->name) : caches.end();
  if (it == caches.end() || it->second.scope != MemScope::Shared)
    fail("wgmma-b-not-shared",
         "Stage '" + stage + "' uses m64nNk8, but its operand " + to_string(T.fb) +
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
  // The copy's elements are the operand type: f32 for tf32, bf16 or f16 for those.
  const DType want = wgmma_operand_type(c.s.precision);
  const int64_t esize = dtype_bytes(want);
  // k along the swizzled rows' dimension, n along the rows; the copy's other dimensions
  // have one element where they lie between (a tap's slice of a convolution's weights) or
  // do not vary with n and k.
  const size_t col = r.swizzle_dim, row = r.swizzle_row_dim;
  bool layout = dims >= 2 && fb.type() == want && r.swizzle_chunk == 16 / esize && r.swizzle_rows == 8 && col != row &&
                r.extent[col] * esize == kWgmmaSwizzleRowBytes && r.stride[col] == 1 &&
                r.stride[row] == r.extent[col] && r.extent[row] % 8 == 0 && r.extent[row] >= T.N;
  for (size_t d = 0; layout && d < dims; ++d) {
    auto cn = coefficient(fb->args[d], T.nv), ck = coefficient(fb->args[d], T.kv);
    layout = cn && ck && *cn == (d == row ? 1 : 0) && *ck == (d == col ? 1 : 0);
  }
  if (!layout)
    fail("wgmma-b-layout",
         "Stage '" + stage + "' uses " + c.s.tensor_core_shape + ", but the shared copy '" + r.buffer +
             "' of its operand " + to_string(T.fb) + " is not K-major rows of " +
             std::to_string(kWgmmaSwizzleRowBytes / esize) + " " + dtype_name(want) +
             " elements with the 128-byte swizzle (n along rows, k along columns).",
         "Stage the operand (a tensor of " + dtype_name(want) + " elements) with cache_read swizzle true over a " +
             "region of " + std::to_string(kWgmmaSwizzleRowBytes / esize) + " elements along the reduction (split k " +
             "by that outside the tile's k loop), its rows stepping with the tile's n loop (where the tensor stores "
             "the reduction outside n, relayout it or lay that dimension out innermost: cache_read innermost), and "
             "order the tile "
             "so that this operand varies with the n loop.");
  Realization logical = r;
  logical.swizzle_chunk = logical.swizzle_rows = 0;
  std::vector<Expr> args;
  for (const auto& a : fb->args) args.push_back(substitute(a, {{T.nv, make_int(0)}, {T.kv, make_int(0)}}));
  Expr start = flat_index(logical, args);
  if (!provably_multiple_of(start, kWgmmaSwizzleAtomBytes / esize))
    fail("wgmma-b-alignment",
         "Stage '" + stage + "' uses " + c.s.tensor_core_shape + ", but the tile's first row of '" + r.buffer +
             "' is not provably 1024 bytes from the copy's start (" + to_string(start) + ").",
         "Make the staged region start at the tile's first row: stage at the loop just outside the tile.");
  return {r.buffer, start};
}

}  // namespace cusched::lowering
