// cache_write scope shared: a reduction's results for the block's output region kept
// in a shared tile, then copied to global memory by all of the block's threads.
#include "codegen/lowering/kernel_builder.h"
#include "codegen/passes/affine.h"
#include "dsl/error.h"

namespace cusched::lowering {

// The stage's loops from p (just inside its block loops) with the accumulators written
// to a shared tile of the block's output region, then, after a barrier, the tile
// copied to global memory by all threads: consecutive threads take consecutive
// 16-byte chunks of a row where alignment is provable, else single elements; each
// is guarded by the output's bounds.
Stmt KernelBuilder::emit_output_tile(Ctx& c, int p, const Env& env, const Env& caches, bool in_thread, bool in_serial) {
  const std::string& stage = c.f.name;
  std::map<std::string, int64_t> sweep;
  for (size_t q = p; q < c.nest.loops.size(); ++q) sweep[c.nest.loops[q].var] = c.nest.loops[q].info.extent;
  const size_t dims = c.f.vars.size();
  std::vector<Expr> mn;
  std::vector<int64_t> ex, full = c.self.extent;
  for (size_t d = 0; d < dims; ++d) {
    auto r = index_range(c.orig.at(c.f.vars[d]), sweep, false);  // exact: the tile is written back whole
    if (!r)
      fail("cache-write-shared-not-affine",
           "Stage '" + stage + "' asks for a shared-memory output tile, but its coordinate '" + c.f.vars[d] +
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
  const DType t = c.f.dtype;
  if (tile.size * dtype_bytes(t) > 96 * 1024)
    fail("cache-write-shared-too-large",
         "The shared-memory output tile of stage '" + stage + "' takes " + std::to_string(tile.size * dtype_bytes(t)) +
             " bytes, more than the 96 KiB the lowering gives it next to the staged inputs.",
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
  Stmt move = store_result(c, at, make_load(tile.buffer, t, {flat_index(tile, at)}));
  if (vec) move = make_for(lanev, make_int(0), make_int(4), LoopKind::Vectorized, GpuAxis::None, move);
  Stmt copy = make_for(cv, make_int(0), (make_int(chunks) + nt - make_int(1)) / nt, LoopKind::Serial, GpuAxis::None,
                       guarded(conds, move));
  return make_allocate(tile.buffer, MemScope::Shared, t, tile.size, make_block({compute, make_barrier(), copy}));
}

}  // namespace cusched::lowering
