// tensor_core m16n8k8 / m16n8k16: a sum of products on warp-wide mma.sync tensor-core
// instructions, its fragments loaded into registers once per k step (with ldmatrix where
// they are read from shared memory in aligned rows), accumulators written out to the
// output or its shared tile (cache_write).
#include <algorithm>

#include "codegen/expr_loads.h"
#include "codegen/lowering/kernel_builder.h"
#include "codegen/mma_layout.h"
#include "codegen/passes/ldmatrix_plan.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {

// A sum of products on tensor cores. The stage's three innermost loops (its last two
// pure loops m and n and its last reduction loop k) become, per warp, a grid of
// 16 x 8 accumulator tiles updated by Mma statements; the 32 lanes of each warp run
// on threadIdx.x. Loops between the first reduction loop and the tile are reduction
// loops or thread loops (the warps of the block).
Stmt KernelBuilder::emit_tensor_core(Ctx& c, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
  if (uses_wgmma(c)) return emit_wgmma(c, env, caches, in_thread, in_serial);
  const auto& loops = c.nest.loops;
  const std::string& stage = c.f.name;
  const MmaLayout& L = mma_layout(c.s.tensor_core_shape);
  const TensorCoreTile T = tensor_core_tile(c);
  const int nl = T.nl, r0 = T.r0;
  const std::vector<int>& red = T.red;
  const int64_t M = T.M, N = T.N, K = T.K;
  if (M % L.m || N % L.n || K % L.k)
    fail("tensor-core-shape-does-not-tile",
         "The tile loops of stage '" + stage + "' (" + std::to_string(M) + " x " + std::to_string(N) + " x " +
             std::to_string(K) + ") do not tile by " + c.s.tensor_core_shape + ".",
         "Split so that the tile's loops are multiples of " + std::to_string(L.m) + ", " + std::to_string(L.n) +
             " and " + std::to_string(L.k) + ".");
  const std::string &mv = T.mv, &nv = T.nv, &kv = T.kv;
  const Expr fa = T.fa, fb = T.fb;
  const std::string acc = stage + "_acc", lane = stage + "_lane", mt = stage + "_mt", nt = stage + "_nt",
                    kt = stage + "_kt";
  const int64_t MT = M / L.m, NT = N / L.n, KT = K / L.k, acc_size = MT * NT * 4;
  const Expr lanev = make_var(lane), group = lanev / make_int(4), quad = lanev % make_int(4);
  const Expr acc_base = (make_var(mt) * make_int(NT) + make_var(nt)) * make_int(4);
  auto lane_loop = [&](Stmt body) {
    return make_for(lane, make_int(0), make_int(32), LoopKind::Serial, GpuAxis::ThreadX, body);
  };
  auto tile_loop = [&](const std::string& v, int64_t extent, Stmt body) {
    return make_for(v, make_int(0), make_int(extent), extent <= 8 ? LoopKind::Unrolled : LoopKind::Serial,
                    GpuAxis::None, body);
  };
  const std::string ai = stage + "_ai";
  Stmt init = over_warps(T, lane_loop(make_for(ai, make_int(0), make_int(acc_size), LoopKind::Unrolled, GpuAxis::None,
                                               make_store(acc, make_var(ai), make_float(0.0)))));

  Stmt main_nest =
      loops_down_to(c, r0, nl - 3, env, caches, in_thread, in_serial, [&](const Env& e2, const Env& c2) -> Stmt {
        // tf32 operands stay f32 bits: the tensor core truncates them itself.
        const bool round_operands = c.s.precision != Precision::tf32;
        auto operand = [&](const Expr& factor, const std::map<std::string, Expr>& at, const std::string& skip,
                           const std::string& own) {
          return tile_operand(c, factor, at, skip, own, kv, e2, c2, round_operands);
        };
        std::vector<TileOperand> a_ops, b_ops;
        for (int i = 0; i < L.a_count; ++i) {
          Expr m = make_var(mt) * make_int(L.m) + group + make_int(L.a_row[i]);
          Expr k = make_var(kt) * make_int(L.k) + quad * make_int(L.k_step) + make_int(L.a_k[i]);
          a_ops.push_back(operand(fa, {{mv, m}, {kv, k}}, nv, mv));
        }
        for (int i = 0; i < L.b_count; ++i) {
          Expr k = make_var(kt) * make_int(L.k) + quad * make_int(L.k_step) + make_int(L.b_k[i]);
          Expr n = make_var(nt) * make_int(L.n) + group;
          b_ops.push_back(operand(fb, {{kv, k}, {nv, n}}, mv, nv));
        }
        // An unguarded fragment read from shared memory in aligned 16-byte rows is loaded
        // with ldmatrix once per k step and tile row (A) or column (B); the Mma reads it
        // from registers. Anything else keeps its scalar loads.
        auto is_shared = [&](const std::string& b) { return is_shared_copy(c2, b); };
        auto plan_for = [&](const std::vector<TileOperand>& o) -> std::optional<LdMatrixPlan> {
          std::vector<Expr> values;
          for (const auto& x : o) {
            if (x.cond.defined()) return std::nullopt;
            values.push_back(x.value);
          }
          return plan_ldmatrix(values, lane, is_shared);
        };
        const std::optional<LdMatrixPlan> pa = plan_for(a_ops), pb = plan_for(b_ops);
        const std::string frag_a = stage + "_fa", frag_b = stage + "_fb";
        // Operands without an ldmatrix plan are read once per k step and tile row (A) or
        // column (B) too: each element's value, its tail guard applied, into a register
        // fragment. One such operand is streamed: its fragment is read inside the loop over
        // its tiles, just before the Mmas that use it, while the other operand's fragments
        // are held for the whole k step (the operand with fewer fragment registers, where
        // neither has a plan), so that each element is still read once per k step but only
        // one tile's worth of the streamed operand is live.
        const bool stream_b = !pb && (pa || MT * L.a_count <= NT * L.b_count), stream_a = !pa && !stream_b;
        std::vector<Expr> ops;
        auto add_ops = [&](const std::vector<TileOperand>& o, const std::optional<LdMatrixPlan>& plan,
                           const std::string& frag, const std::string& tile_var, bool streamed) {
          const int64_t count = static_cast<int64_t>(o.size());
          for (int64_t i = 0; i < count; ++i) {
            const Expr slot = streamed ? make_int(i) : make_var(tile_var) * make_int(count) + make_int(i);
            ops.push_back(plan ? read_from_fragment(o[i].value, *plan, frag, slot)
                               : make_load(frag, DType::f32, {slot}));
          }
        };
        // The stores of tile `tile_var`'s fragment elements (at `slot_base` + i).
        auto fill_tile = [&](const std::vector<TileOperand>& o, const std::string& frag, const Expr& slot_base) {
          std::vector<Stmt> stores;
          for (size_t i = 0; i < o.size(); ++i)
            stores.push_back(make_store(frag, slot_base + make_int(static_cast<int64_t>(i)), o[i].guarded()));
          return make_block(stores);
        };
        auto held = [&](const std::vector<TileOperand>& o, const std::optional<LdMatrixPlan>& plan,
                        const std::string& frag, const std::string& tile_var, int64_t tiles, int count) {
          const Expr base = make_var(tile_var) * make_int(count);
          return tile_loop(
              tile_var, tiles,
              plan ? make_ldmatrix(frag, base, plan->source, plan->row_address, plan->matrices, plan->transpose)
                   : fill_tile(o, frag, base));
        };
        add_ops(a_ops, pa, frag_a, mt, stream_a);
        add_ops(b_ops, pb, frag_b, nt, stream_b);
        Stmt mma = make_mma(c.s.tensor_core_shape, c.s.precision, acc, acc_base, ops);
        Stmt body;
        if (stream_b)
          body = make_block(
              {held(a_ops, pa, frag_a, mt, MT, L.a_count),
               tile_loop(nt, NT, make_block({fill_tile(b_ops, frag_b, make_int(0)), tile_loop(mt, MT, mma)}))});
        else if (stream_a)
          body = make_block(
              {held(b_ops, pb, frag_b, nt, NT, L.b_count),
               tile_loop(mt, MT, make_block({fill_tile(a_ops, frag_a, make_int(0)), tile_loop(nt, NT, mma)}))});
        else
          body = make_block({held(a_ops, pa, frag_a, mt, MT, L.a_count), held(b_ops, pb, frag_b, nt, NT, L.b_count),
                             tile_loop(mt, MT, tile_loop(nt, NT, mma))});
        body = make_allocate(frag_b, MemScope::Register, pb ? pb->dtype : DType::f32,
                             stream_b ? L.b_count : NT * L.b_count, body);
        body = make_allocate(frag_a, MemScope::Register, pa ? pa->dtype : DType::f32,
                             stream_a ? L.a_count : MT * L.a_count, body);
        return lane_loop(tile_loop(kt, KT, body));
      });

  // Write-out: each lane stores its four accumulators of every tile.
  const std::string j = stage + "_aj";
  Expr jv = make_var(j);
  Expr row =
      make_var(mt) * make_int(L.m) + group + select(jv < make_int(2), make_int(L.c_row[0]), make_int(L.c_row[2]));
  Expr col = make_var(nt) * make_int(L.n) + quad * make_int(2) + jv % make_int(2);
  std::vector<Expr> idx;
  for (size_t d = 0; d < c.f.vars.size(); ++d)
    idx.push_back(substitute(c.orig.at(c.f.vars[d]), {{mv, row}, {nv, col}}));
  std::vector<Expr> wguards;
  for (const auto& g : c.nest.guards)
    if (std::none_of(red.begin(), red.end(), [&](int q) { return mentions_var(g, loops[q].var); }))
      wguards.push_back(substitute(g, {{mv, row}, {nv, col}}));
  Stmt write = guarded(wguards, store_result(c, idx, make_load(acc, DType::f32, {acc_base + jv})));
  Stmt per_tile = make_for(j, make_int(0), make_int(4), LoopKind::Unrolled, GpuAxis::None, write);
  if (output_tiles_.count(c.self.buffer)) {
    // Into the block's shared output tile, which holds the tails too: no guards, and
    // each lane's two adjacent accumulators of a row as one pair (float2).
    const std::string jr = stage + "_ar", jc = stage + "_ac";
    Expr trow =
        make_var(mt) * make_int(L.m) + group + make_var(jr) * make_int(L.c_row[2] - L.c_row[0]) + make_int(L.c_row[0]);
    Expr tcol = make_var(nt) * make_int(L.n) + quad * make_int(2) + make_var(jc);
    std::vector<Expr> tidx;
    for (size_t d = 0; d < c.f.vars.size(); ++d)
      tidx.push_back(substitute(c.orig.at(c.f.vars[d]), {{mv, trow}, {nv, tcol}}));
    Stmt pair = make_store(c.self.buffer, flat_index(c.self, tidx),
                           make_load(acc, DType::f32, {acc_base + make_var(jr) * make_int(2) + make_var(jc)}));
    per_tile = make_for(jr, make_int(0), make_int(2), LoopKind::Unrolled, GpuAxis::None,
                        make_for(jc, make_int(0), make_int(2), LoopKind::Vectorized, GpuAxis::None, pair));
  }
  Stmt write_nest = over_warps(T, lane_loop(tile_loop(mt, MT, tile_loop(nt, NT, per_tile))));
  return make_allocate(acc, MemScope::Register, DType::f32, acc_size, make_block({init, main_nest, write_nest}));
}

}  // namespace cusched::lowering
