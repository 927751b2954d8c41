#include "search/tensor_core_sketches.h"

#include <algorithm>
#include <functional>

#include "dsl/expr_substitute.h"
#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"
#include "search/cost_model.h"
#include "search/sketch_steps.h"

namespace cusched::search {

namespace {

using nlohmann::json;

// The sources of a 2-D sum of products in the order (A varies with i, B with j), each
// with the shared-memory padding that spreads the warps' fragment reads over the banks
// (4 when the source's rows run along k, 8 otherwise).
std::vector<std::pair<std::string, int>> matmul_sources(const FuncDef& f) {
  std::vector<std::pair<std::string, int>> out;
  const std::string i = f.vars[f.vars.size() - 2];
  std::function<void(const Expr&)> scan = [&](const Expr& e) {
    if (e->op == ExprOp::Load && !e->args.empty()) {
      const std::string& k = f.body->rvars[0].name;
      int pad = mentions_var(e->args.back(), k) ? 4 : 8;
      bool is_a = std::any_of(e->args.begin(), e->args.end(), [&](const Expr& a) { return mentions_var(a, i); });
      out.insert(is_a ? out.begin() : out.end(), {e->name, pad});
      return;
    }
    for (const auto& a : e->args) scan(a);
  };
  scan(f.body->args[0]);
  return out;
}

// The operand type of a sum of products whose sources are both 16-bit tensors (bf16 or
// f16, the same), else f32.
DType source_type(const FuncDef& f) {
  const auto loads = f.product_loads();
  if (!loads) return DType::f32;
  const DType t = loads->first.type();
  return loads->second.type() == t && (t == DType::bf16 || t == DType::f16) ? t : DType::f32;
}

// The batch loop of a sum of products over (batch..., i, j): "" for none, the one batch
// variable, or several (attention's batch and heads) fused into one by steps added to
// `steps`.
std::string batch_loop(json& steps, const FuncDef& f) {
  if (f.vars.size() <= 2) return "";
  const std::vector<std::string> batch(f.vars.begin(), f.vars.end() - 2);
  return fuse_loops(steps, f.name, batch, "bat");
}

// Tensor-core tiles (TF32 mma.sync) of a sum of products, for a few block and warp shapes.
void mma_sync_sketches(std::vector<Sketch>& out, const FuncDef& f) {
  if (f.body->rvars.size() != 1 || f.vars.size() < 2) return;
  auto src = matmul_sources(f);
  if (src.size() != 2) return;
  json fused = json::array();
  const std::string batch = batch_loop(fused, f);
  const std::string i = f.vars[f.vars.size() - 2], j = f.vars.back();
  for (TensorCoreTile t :
       {TensorCoreTile{128, 128, 64, 32, 32, "tf32", 3}, TensorCoreTile{128, 128, 64, 64, 32, "tf32", 3},
        TensorCoreTile{128, 128, 64, 32, 32, "3xtf32", 3}, TensorCoreTile{128, 128, 64, 64, 16, "tf32"},
        TensorCoreTile{64, 64, 32, 32, 32, "3xtf32", 2}, TensorCoreTile{128, 64, 64, 32, 32, "3xtf32"},
        TensorCoreTile{64, 128, 32, 64, 16, "tf32", 4}}) {
    json s = concat_steps({fused, tensor_core_tile_steps(f.name, i, j, f.body->rvars[0].name, src[0].first,
                                                         src[0].second, src[1].first, src[1].second, batch, t)});
    out.push_back({std::to_string(t.bm) + "x" + std::to_string(t.bn) + " blocks of " + std::to_string(t.wm) + "x" +
                       std::to_string(t.wn) + " warp tiles of " + f.name + " on " + t.precision +
                       " tensor cores, k in steps of " + std::to_string(t.bk) + " staged in shared memory" +
                       (t.pipeline_depth > 1 ? ", pipelined " + std::to_string(t.pipeline_depth) + " deep" : ""),
                   s});
  }
}

// Warpgroup tensor-core tiles (wgmma, TF32 or 3xTF32) of a sum of products with an operand that
// runs along k in memory: the tensor cores read that one from a swizzled copy (B's when
// both do), the other is loaded into registers; the tile's n follows the first, so for
// C = A @ B with B's rows along j the tile computes C's transpose (m = j, n = i).
void wgmma_sketches(std::vector<Sketch>& out, const FuncDef& f) {
  if (f.body->rvars.size() != 1 || f.vars.size() < 2) return;
  auto src = matmul_sources(f);
  if (src.size() != 2) return;
  const bool a_along_k = src[0].second == 4, b_along_k = src[1].second == 4;
  if (!a_along_k && !b_along_k) return;
  json fused = json::array();
  const std::string batch = batch_loop(fused, f);
  const std::string i = f.vars[f.vars.size() - 2], j = f.vars.back();
  const std::string m = b_along_k ? i : j, n = b_along_k ? j : i;
  const auto& in_registers = b_along_k ? src[0] : src[1];
  const auto& through_descriptor = b_along_k ? src[1] : src[0];
  struct Tile {
    int bn, depth;
    const char* precision;
    const char* engine;
  };
  // 3xtf32 holds two more copies of B's tile in shared memory: 128-wide tiles only. On the
  // tensor memory accelerator the copies are unpadded boxes (one per operand and k step).
  // 16-bit sources take 16-bit wgmma (k16) on the accelerator, which copies 2-byte elements
  // (cp.async does not), or with copies made synchronously (depth 0).
  std::vector<Tile> tiles = {Tile{256, 4, "tf32", "cp.async"},   Tile{256, 3, "tf32", "cp.async"},
                             Tile{128, 4, "tf32", "cp.async"},   Tile{128, 3, "tf32", "cp.async"},
                             Tile{128, 4, "3xtf32", "cp.async"}, Tile{128, 3, "3xtf32", "cp.async"},
                             Tile{256, 4, "tf32", "tensor"},     Tile{128, 4, "tf32", "tensor"}};
  const DType sources = source_type(f);
  if (sources != DType::f32) {
    const char* p = sources == DType::bf16 ? "bf16" : "f16";
    tiles = {Tile{256, 4, p, "tensor"}, Tile{256, 3, p, "tensor"}, Tile{128, 4, p, "tensor"},
             Tile{256, 0, p, "cp.async"}};
  }
  for (Tile t : tiles) {
    const int bn = t.bn, depth = t.depth;
    const std::string precision = t.precision, engine = t.engine;
    const bool tensor = engine == "tensor";
    json s = concat_steps({fused, wgmma_tile_steps(f.name, m, n, f.body->rvars[0].name, in_registers.first,
                                                   tensor ? 0 : in_registers.second, through_descriptor.first, batch,
                                                   bn, 2, depth, precision, engine)});
    const std::string name = precision == "tf32"     ? "TF32"
                             : precision == "3xtf32" ? "3xTF32"
                             : precision == "bf16"   ? "BF16"
                                                     : "F16";
    const int k_step = precision == "bf16" || precision == "f16" ? 64 : 32;
    out.push_back({std::to_string(bn) + "x128 blocks of two warpgroups of " + f.name +
                       " on Hopper warpgroup MMA (wgmma, " + name + "; " + through_descriptor.first +
                       " read from a swizzled copy, " + in_registers.first + " from registers" +
                       (b_along_k ? "" : ", C's transpose") + "), k in steps of " + std::to_string(k_step) +
                       (depth > 1 ? " pipelined " + std::to_string(depth) + " deep" : " copied synchronously") +
                       (tensor && depth > 1 ? " on the tensor memory accelerator" : ""),
                   s});
  }
}

}  // namespace

std::vector<Sketch> split_k_tensor_core_sketches(const Problem& p, const FuncDef& f) {
  std::vector<Sketch> out;
  if (f.body->rvars.size() != 1 || f.vars.size() != 2 || !f.is_sum_of_load_products()) return out;
  auto src = matmul_sources(f);
  if (src.size() != 2) return out;
  const SizeBindings& sizes = p.size(p.default_size);
  const int64_t rows = eval_int(f.extents[0], sizes), columns = eval_int(f.extents[1], sizes);
  const int64_t tiles = ((rows + 127) / 128) * ((columns + 127) / 128), k = rvar_extent(f.body->rvars[0], sizes);
  // A side under 64 (a matrix times a vector) would leave most of each 128-wide tile idle.
  if (tiles >= kMultiprocessors || k < 16384 || rows < 64 || columns < 64) return out;
  int64_t parts = 1;
  while (parts < 256 && tiles * parts * 2 <= 4 * kMultiprocessors && k / (parts * 2) >= 512) parts *= 2;
  if (parts < 4) return out;
  const std::string partial = f.name + "_part", i = f.vars[0], j = f.vars[1], kv = f.body->rvars[0].name;
  const json split = json::array(
      {schedule_step("split", f.name,
                     {{"loop", kv}, {"factor", (k + parts - 1) / parts}, {"outer", "kpart"}, {"inner", "kin"}}),
       schedule_step("rfactor", f.name, {{"loop", "kpart"}, {"name", partial}})});
  for (const char* precision : {"tf32", "3xtf32"}) {
    const TensorCoreTile t{128, 128, 64, 32, 32, precision, 3};
    json s = concat_steps({split,
                           tensor_core_tile_steps(partial, i, j, "kin", src[0].first, src[0].second, src[1].first,
                                                  src[1].second, "kpart", t),
                           flat_grid_steps(f.name, f.vars, 256, 1)});
    out.push_back({"split-K: " + kv + " in " + std::to_string(parts) + " parts (rfactor), each a 128x128 block of " +
                       "64x32 warp tiles on " + precision + " tensor cores pipelined 3 deep, the parts summed by " +
                       "one thread per output",
                   s});
  }
  return out;
}

std::vector<Sketch> tensor_core_tile_sketches(const FuncDef& f) {
  std::vector<Sketch> out;
  wgmma_sketches(out, f);
  mma_sync_sketches(out, f);
  return out;
}

}  // namespace cusched::search
