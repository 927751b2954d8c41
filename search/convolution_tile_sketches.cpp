#include "search/convolution_tile_sketches.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "codegen/linear_form.h"
#include "codegen/passes/affine.h"
#include "dsl/expr_substitute.h"
#include "dsl/padded_load.h"
#include "dsl/step_builder.h"
#include "problems/baseline_steps.h"
#include "search/sketch_steps.h"

namespace cusched::search {

using nlohmann::json;

namespace {

bool reads_var(const Expr& load, const std::string& var) {
  return std::any_of(load->args.begin(), load->args.end(), [&](const Expr& a) { return mentions_var(a, var); });
}

bool whole_index(const Expr& load, const std::string& var) {
  return std::any_of(load->args.begin(), load->args.end(),
                     [&](const Expr& a) { return a->op == ExprOp::Var && a->name == var; });
}

// The load of `f`'s product (a sum of products of two loads: f has convolution_roles)
// that reads tensor `name`.
Expr product_load(const FuncDef& f, const std::string& name) {
  const auto loads = f.product_loads();
  return loads->first->name == name ? loads->first : loads->second;
}

int64_t pure_extent(const FuncDef& f, const std::string& var, const SizeBindings& sizes) {
  for (size_t i = 0; i < f.vars.size(); ++i)
    if (f.vars[i] == var) return eval_int(f.extents[i], sizes);
  return 0;
}

// The extent of `f`'s reduction variable `var` at `sizes` (0 where f has none of that name).
int64_t reduction_var_extent(const FuncDef& f, const std::string& var, const SizeBindings& sizes) {
  for (const auto& rv : f.body->rvars)
    if (rv.name == var) return rvar_extent(rv, sizes);
  return 0;
}

// The largest power of two at most `n`, within [1, cap].
int64_t pow2_at_most(int64_t n, int64_t cap) {
  int64_t p = 1;
  while (p * 2 <= std::min(n, cap)) p *= 2;
  return p;
}

// Each thread computes rm channels x rn columns in registers (rn columns 32 apart, so a
// warp's loads of the data stay contiguous); tx x ty threads per block, the reduction
// loops serial around the unrolled register tile.
json register_tile(const FuncDef& f, const ConvolutionRoles& r, int64_t rm, int64_t rn, int64_t tx, int64_t ty) {
  json s = json::array();
  s.push_back(
      schedule_step("split", f.name, {{"loop", r.columns}, {"factor", tx}, {"outer", "colt"}, {"inner", "colx"}}));
  s.push_back(schedule_step("split", f.name, {{"loop", "colt"}, {"factor", rn}, {"outer", "colb"}, {"inner", "colr"}}));
  std::vector<std::string> order = r.outer, block = r.outer;
  if (!r.channels.empty()) {
    s.push_back(
        schedule_step("split", f.name, {{"loop", r.channels}, {"factor", rm}, {"outer", "cht"}, {"inner", "chr"}}));
    s.push_back(schedule_step("split", f.name, {{"loop", "cht"}, {"factor", ty}, {"outer", "chb"}, {"inner", "chy"}}));
    order.push_back("chb");
    block.push_back("chb");
  }
  order.push_back("colb");
  if (!r.channels.empty()) order.push_back("chy");
  order.push_back("colx");
  for (const auto& rv : f.body->rvars) order.push_back(rv.name);
  if (!r.channels.empty()) order.push_back("chr");
  order.push_back("colr");
  s.push_back(schedule_step("reorder", f.name, {{"loops", order}}));
  if (!block.empty()) {
    std::string b = fuse_loops(s, f.name, block, "blk");
    s.push_back(schedule_step("bind", f.name, {{"loop", b}, {"axis", "blockIdx.x"}}));
    s.push_back(schedule_step("bind", f.name, {{"loop", "colb"}, {"axis", "blockIdx.y"}}));
  } else {
    s.push_back(schedule_step("bind", f.name, {{"loop", "colb"}, {"axis", "blockIdx.x"}}));
  }
  if (!r.channels.empty()) s.push_back(schedule_step("bind", f.name, {{"loop", "chy"}, {"axis", "threadIdx.y"}}));
  s.push_back(schedule_step("bind", f.name, {{"loop", "colx"}, {"axis", "threadIdx.x"}}));
  if (!r.channels.empty() && rm > 1) s.push_back(schedule_step("unroll", f.name, {{"loop", "chr"}}));
  if (rn > 1) s.push_back(schedule_step("unroll", f.name, {{"loop", "colr"}}));
  return s;
}

// Appends register_tile's sketch after the steps `first`, its idea naming the columns
// (`over`: where they are not the output's last loop alone), unless a sketch of that idea
// is there already.
void add_register_tile(std::vector<Sketch>& out, const FuncDef& f, const ConvolutionRoles& r, int64_t rm, int64_t rn,
                       int64_t tx, int64_t ty, const std::string& over, const json& first) {
  const std::string idea = "register tiles of " + std::to_string(rm) + " channels x " + std::to_string(rn) +
                           " columns per thread" + over + ", " + std::to_string(tx * ty) + " threads per block";
  if (std::any_of(out.begin(), out.end(), [&](const Sketch& s) { return s.idea == idea; })) return;
  out.push_back({idea, concat_steps({first, register_tile(f, r, rm, rn, tx, ty)})});
}

// The columns a tile runs along: the output's last loop, or the last two fused into one
// ("colf"; `first`: the fuse step, `text`: its mention in an idea).
struct ColumnLoops {
  ConvolutionRoles roles;
  json first = json::array();
  std::string text;
};

// The last two output loops fused into the columns, where the row loop is the last of the
// block's loops. Nullopt otherwise.
std::optional<ColumnLoops> rows_fused_into_columns(const FuncDef& f, const ConvolutionRoles& r) {
  const std::string row = f.vars.size() >= 2 ? f.vars[f.vars.size() - 2] : "";
  if (r.outer.empty() || r.outer.back() != row) return std::nullopt;
  ColumnLoops c{r,
                json::array({schedule_step("fuse", f.name, {{"outer", row}, {"inner", r.columns}, {"fused", "colf"}})}),
                " over " + row + " and " + r.columns + " fused"};
  c.roles.outer.pop_back();
  c.roles.columns = "colf";
  return c;
}

// The pad of the data's shared copy in implicit_gemm: the copy's rows (the region a block
// reads while the 128 columns of its tile, the chunk of `kc` channels, the loops of
// `also_swept` (variable, extent) and, unless `per_tap`, every tap sweep, bounded as the
// lowering bounds it: index_range) padded to a
// multiple of 4 elements (16-byte copies) such that consecutive channels of the chunk lie
// 8 banks (mod 32) apart, so that the four k lanes of an mma.sync B fragment read 32
// different banks. 8 where the data's index has no such bound.
int64_t data_copy_pad(const FuncDef& f, const ConvolutionRoles& r, int64_t kc, bool per_tap, const SizeBindings& sizes,
                      const std::map<std::string, int64_t>& also_swept = {}) {
  constexpr int64_t kFallback = 8;
  const Expr data = product_load(f, r.data);
  if (!reads_var(data, r.columns)) return kFallback;  // columns fused from several variables
  std::map<std::string, int64_t> sweep = {{r.columns, 128}, {r.channel_sum, kc}};
  sweep.insert(also_swept.begin(), also_swept.end());
  if (!per_tap)
    for (const auto& rv : f.body->rvars)
      if (std::find(r.taps.begin(), r.taps.end(), rv.name) != r.taps.end()) sweep[rv.name] = rvar_extent(rv, sizes);
  std::vector<int64_t> extent;
  size_t channel_dim = data->args.size();
  for (size_t d = 0; d < data->args.size(); ++d) {
    const auto range = index_range(data->args[d], sweep);
    if (!range) return kFallback;
    if (mentions_var(data->args[d], r.channel_sum)) channel_dim = d;
    extent.push_back(range->extent);
  }
  if (channel_dim + 1 >= extent.size()) return kFallback;
  int64_t rows = 1;
  for (size_t d = channel_dim + 1; d + 1 < extent.size(); ++d) rows *= extent[d];
  for (int64_t pad = 0; pad < 32; ++pad) {
    const int64_t pitch = extent.back() + pad, banks = rows * pitch % 32;
    if (pitch % 4 == 0 && (banks == 8 || banks == 24)) return pad;
  }
  return kFallback;
}

// The block tile both implicit GEMMs share: the columns in blocks of 128 (colo, coli),
// halved into 64 (colw, `col_inner`) unless `col_inner` is empty, the channels in blocks
// of `bc` (chb, `ch_inner`), the channel sum in chunks of `kc` (rco, rci); after the
// `before_reorder` steps, the loops reordered as the block's loops, colo, rco, the taps
// and `inner` (bind_implicit_gemm_blocks binds the block's loops).
json implicit_gemm_blocks(const FuncDef& f, const ConvolutionRoles& r, int64_t bc, int64_t kc,
                          const std::string& col_inner, const std::string& ch_inner, const json& before_reorder,
                          const std::vector<std::string>& inner) {
  json s = json::array();
  auto split = [&](const std::string& loop, int64_t factor, const std::string& outer, const std::string& in) {
    s.push_back(schedule_step("split", f.name, {{"loop", loop}, {"factor", factor}, {"outer", outer}, {"inner", in}}));
  };
  split(r.columns, 128, "colo", "coli");
  if (!col_inner.empty()) split("coli", 64, "colw", col_inner);
  split(r.channels, bc, "chb", ch_inner);
  for (const auto& step : before_reorder) s.push_back(step);
  split(r.channel_sum, kc, "rco", "rci");
  std::vector<std::string> order = r.outer;
  for (const char* l : {"chb", "colo", "rco"}) order.push_back(l);
  order.insert(order.end(), r.taps.begin(), r.taps.end());
  order.insert(order.end(), inner.begin(), inner.end());
  s.push_back(schedule_step("reorder", f.name, {{"loops", order}}));
  return s;
}

// Binds implicit_gemm_blocks' block loops: the block's loops fused onto blockIdx.x, colo
// onto blockIdx.y.
void bind_implicit_gemm_blocks(json& s, const FuncDef& f, const ConvolutionRoles& r) {
  std::vector<std::string> block = r.outer;
  block.push_back("chb");
  s.push_back(schedule_step("bind", f.name, {{"loop", fuse_loops(s, f.name, block, "blk")}, {"axis", "blockIdx.x"}}));
  s.push_back(schedule_step("bind", f.name, {{"loop", "colo"}, {"axis", "blockIdx.y"}}));
}

// Where implicit_gemm stages its operands in shared memory.
enum class GemmStaging {
  per_tap,  // the chunk's data and that tap's weights at the last tap (at the chunk loop where there are no taps), 3 deep
  per_chunk,  // the chunk's data for every tap (its rows and columns widened by the taps) and all its weights, 2 deep
  per_block,  // the block's data and weights for the whole reduction, once before it, no pipeline
};

// Implicit GEMM: per block `bc` channels (warps of 32, or of 16 where `bc` is 16) x 128
// columns (warps of 64); the channel sum in chunks of `kc` innermost, the taps serial
// outside the warp tiles; the operands staged in shared memory as `staging` says (with a
// cp.async pipeline unless per block), the taps reading them from there.
json implicit_gemm(const FuncDef& f, const ConvolutionRoles& r, int64_t bc, int64_t kc, const std::string& precision,
                   GemmStaging staging, const SizeBindings& sizes) {
  const bool per_tap = staging == GemmStaging::per_tap;
  const int64_t warp_channels = std::min<int64_t>(32, bc);
  json s = implicit_gemm_blocks(
      f, r, bc, kc, "coln", "chi",
      json::array({schedule_step("split", f.name,
                                 {{"loop", "chi"}, {"factor", warp_channels}, {"outer", "chw"}, {"inner", "chm"}})}),
      {"chw", "colw", "chm", "coln", "rci"});
  bind_implicit_gemm_blocks(s, f, r);
  s.push_back(schedule_step("bind", f.name, {{"loop", "chw"}, {"axis", "threadIdx.z"}}));
  s.push_back(schedule_step("bind", f.name, {{"loop", "colw"}, {"axis", "threadIdx.y"}}));
  const std::string at = staging == GemmStaging::per_block ? "colo"
                         : per_tap && !r.taps.empty()      ? r.taps.back()
                                                           : "rco";
  s.push_back(schedule_step(
      "cache_read", f.name,
      {{"source", r.data}, {"scope", "shared"}, {"at", at}, {"pad", data_copy_pad(f, r, kc, per_tap, sizes)}}));
  s.push_back(
      schedule_step("cache_read", f.name, {{"source", r.weights}, {"scope", "shared"}, {"at", at}, {"pad", 0}}));
  s.push_back(schedule_step("tensor_core", f.name, {{"shape", "m16n8k8"}, {"precision", precision}}));
  s.push_back(schedule_step("launch_bounds", f.name, {{"max_threads", bc / warp_channels * 64}, {"min_blocks", 2}}));
  if (staging != GemmStaging::per_block)
    s.push_back(schedule_step("pipeline", f.name, {{"loop", at}, {"depth", per_tap ? 3 : 2}}));
  return s;
}

// Whether `f`'s data load is read without padding and each of its indices is linear with
// no negative coefficient on any tap.
bool taps_move_data_up(const FuncDef& f, const ConvolutionRoles& r) {
  const Expr data = product_load(f, r.data);
  if (is_padded_load(data)) return false;
  for (const auto& a : data->args) {
    const auto form = linear_form(a);
    if (!form) return false;
    for (const auto& t : r.taps)
      if (auto it = form->coeff.find(t); it != form->coeff.end() && it->second < 0) return false;
  }
  return true;
}

// Implicit GEMM (implicit_gemm's tile) for a channel sum too short for tensor cores' k
// steps of 8 (3 input channels): the taps and the channel sum fused into one reduction
// loop, taps outside and the channel sum inside, so that each chunk of 8 covers a few
// neighbouring taps of every channel; its chunks staged in shared memory 3 deep
// (`per_tap`: no taps are left) or 2 deep (the chunk past the end zero-filled), or
// (`per_block`) the block's data and weights for every chunk staged once before the
// reduction (no copy in its steps, whose addresses decode the taps element by element).
json implicit_gemm_fused_k(const FuncDef& f, const ConvolutionRoles& r, int64_t bc, const std::string& precision,
                           GemmStaging staging, const SizeBindings& sizes) {
  std::vector<std::string> k = r.taps;
  k.push_back(r.channel_sum);
  json s = json::array();
  if (k.size() > 1) s.push_back(schedule_step("reorder", f.name, {{"loops", k}}));
  ConvolutionRoles fused = r;
  fused.channel_sum = k.size() > 1 ? fuse_loops(s, f.name, k, "kk") : r.channel_sum;
  fused.taps.clear();
  return concat_steps({s, implicit_gemm(f, fused, bc, 8, precision, staging, sizes)});
}

// The relayout order of `load`'s dimensions that moves those indexed by exactly the
// variables `last` (each a whole index) to the end, in that order, the others keeping
// theirs; nullopt where one of them is not a whole index or another dimension reads it.
std::optional<std::vector<int64_t>> order_with_last(const Expr& load, const std::vector<std::string>& last) {
  std::vector<std::optional<int64_t>> at(last.size());
  std::vector<int64_t> order;
  for (size_t d = 0; d < load->args.size(); ++d) {
    const Expr& a = load->args[d];
    const auto v = std::find_if(last.begin(), last.end(), [&](const std::string& x) { return mentions_var(a, x); });
    if (v == last.end()) {
      order.push_back(static_cast<int64_t>(d));
      continue;
    }
    std::optional<int64_t>& slot = at[static_cast<size_t>(v - last.begin())];
    if (a->op != ExprOp::Var || slot) return std::nullopt;
    slot = static_cast<int64_t>(d);
  }
  for (const auto& d : at) {
    if (!d) return std::nullopt;
    order.push_back(*d);
  }
  return order;
}

// The order in which relayout copies the weights so that a tap's slice is wgmma's K-major
// B operand (rows of the channel sum, one per output channel, contiguous): the taps'
// dimensions first, then the output channels', then the channel sum's (weight(o, rc, kh,
// kw) and a transposed convolution's weight(rc, o, kh, kw) both become (kh, kw, o, rc));
// nullopt where either is not a whole index or another dimension reads them.
std::optional<std::vector<int64_t>> weights_relayout_order(const FuncDef& f, const ConvolutionRoles& r) {
  return order_with_last(product_load(f, r.weights), {r.channels, r.channel_sum});
}

// The order in which relayout copies the data so that the channel sum is its innermost
// dimension (channels last: data(n, rc, h, w) becomes (n, h, w, rc)), so that each step's
// copy of the data reads whole 128-byte rows of 32 channels; nullopt where the channel sum
// is not a whole index of the data or already innermost.
std::optional<std::vector<int64_t>> data_relayout_order(const FuncDef& f, const ConvolutionRoles& r) {
  const Expr data = product_load(f, r.data);
  auto order = order_with_last(data, {r.channel_sum});
  if (order && order->back() + 1 == static_cast<int64_t>(data->args.size())) return std::nullopt;
  return order;
}

// The relayout copy `relaid` of a tensor whose innermost dimension moves (to position
// `moved` of the copy) while the copy's innermost dimension comes from further out: a
// transpose through shared memory. Each block takes 32 of the moved dimension by 32 of
// the copy's innermost (the copy's other dimensions fused onto blockIdx.x with them),
// reads the tile from the source along its rows (one 128-byte row per warp) into a shared
// copy padded by one element, and writes the copy along its own rows: 32 x 4 threads,
// 8 elements each.
json transposing_copy_steps(const std::string& relaid, int64_t rank, int64_t moved, const std::string& source) {
  json s = json::array();
  const std::string inner = "d" + std::to_string(rank - 1), along = "d" + std::to_string(moved);
  s.push_back(schedule_step("split", relaid, {{"loop", along}, {"factor", 32}, {"outer", "ro"}, {"inner", "ri"}}));
  s.push_back(schedule_step("split", relaid, {{"loop", inner}, {"factor", 32}, {"outer", "co"}, {"inner", "ci"}}));
  s.push_back(schedule_step("split", relaid, {{"loop", "ri"}, {"factor", 8}, {"outer", "ry"}, {"inner", "rz"}}));
  std::vector<std::string> block;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (d != moved) block.push_back("d" + std::to_string(d));
  block.push_back("ro");
  block.push_back("co");
  std::vector<std::string> order = block;
  for (const char* l : {"ry", "rz", "ci"}) order.push_back(l);
  s.push_back(schedule_step("reorder", relaid, {{"loops", order}}));
  const std::string blk = fuse_loops(s, relaid, block, "tile");
  s.push_back(schedule_step("bind", relaid, {{"loop", blk}, {"axis", "blockIdx.x"}}));
  s.push_back(schedule_step("bind", relaid, {{"loop", "ci"}, {"axis", "threadIdx.x"}}));
  s.push_back(schedule_step("bind", relaid, {{"loop", "ry"}, {"axis", "threadIdx.y"}}));
  s.push_back(schedule_step("cache_read", relaid, {{"source", source}, {"scope", "shared"}, {"at", blk}, {"pad", 1}}));
  return s;
}

// Implicit GEMM on warpgroup tensor cores (wgmma m64nNk8): per block 128 columns (two
// warpgroups of 64, the M side) x `bn` output channels (the N side, one instruction
// wide); the channel sum in chunks of 32 (one swizzled 128-byte row of the weights per
// channel) fused with the taps into one loop, at which each step's data (padded rows,
// read into registers as A) and that tap's weights (a copy of them relaid out in
// `weights_order` by a kernel of its own, so that each tap's slice is contiguous rows of
// the channel sum; swizzled; read by the tensor cores as B) are staged with a
// `depth`-buffer cp.async pipeline, both 16 bytes per copy where aligned. Two blocks per
// multiprocessor where the buffers allow it (TF32, 3 deep); 3xTF32 holds two more tiles
// of the weights. With `two_rows`, a block computes two output rows (a warpgroup each,
// over all 128 columns), so that each step's weights serve twice the products.
// With `data_order` (data_relayout_order), the data is relaid out channels last by a
// transposing kernel of its own (transposing_copy_steps), so that each step's copy of it
// is 16-byte copies of whole rows of 32 channels, its pitch padded to 36 elements (the
// A fragments' eight columns by four channels then read 32 different banks).
// With `row_taps_share` (given with `data_order`, where there are taps), the last tap (the
// columns' shift) stays a loop inside the step: each step stages one chunk's data once for
// all that tap's shifts (its rows widened by them) and the weights of all of them, and
// each shift reads the data's copy a row further on.
json implicit_gemm_wgmma(const FuncDef& f, const ConvolutionRoles& r, int64_t bn, const std::string& precision,
                         int depth, const std::vector<int64_t>& weights_order, bool two_rows,
                         const std::optional<std::vector<int64_t>>& data_order, bool row_taps_share,
                         const SizeBindings& sizes) {
  // Two rows: the output row loop split in pairs, a warpgroup per row (threadIdx.y), each
  // over the block's 128 columns (two 64-row parts of the wgmma tile).
  ConvolutionRoles roles = r;
  json s = json::array();
  std::map<std::string, int64_t> rows_swept;
  if (two_rows) {
    s.push_back(schedule_step("split", f.name,
                              {{"loop", r.outer.back()}, {"factor", 2}, {"outer", "rowo"}, {"inner", "rowi"}}));
    roles.outer.back() = "rowo";
    rows_swept = {{r.outer.back(), 2}};
  }
  const std::vector<std::string> inner = two_rows ? std::vector<std::string>{"rowi", "coli", "chn", "rci"}
                                                  : std::vector<std::string>{"colw", "colm", "chn", "rci"};
  s = concat_steps({s, implicit_gemm_blocks(f, roles, bn, 32, two_rows ? "" : "colm", "chn", json::array(), inner)});
  std::vector<std::string> steps = {"rco"};
  steps.insert(steps.end(), r.taps.begin(), r.taps.end());
  if (row_taps_share) steps.pop_back();
  const std::string at = fuse_loops(s, f.name, steps, "kstep");
  bind_implicit_gemm_blocks(s, f, roles);
  s.push_back(schedule_step("bind", f.name, {{"loop", two_rows ? "rowi" : "colw"}, {"axis", "threadIdx.y"}}));
  // The relaid-out weights, one copy per convolution stage (a flat grid of its own).
  const std::string relaid = r.weights + "_" + f.name;
  const json relayout = {
      {"op", "relayout"}, {"stage", f.name}, {"source", r.weights}, {"order", weights_order}, {"name", relaid}};
  std::vector<std::string> copy_vars;
  for (size_t d = 0; d < weights_order.size(); ++d) copy_vars.push_back("d" + std::to_string(d));
  s = concat_steps({json::array({relayout}), flat_grid_steps(relaid, copy_vars, 256), s});
  std::string data = r.data;
  int64_t data_pad = 0;
  if (data_order) {
    data = r.data + "_" + f.name;
    const int64_t rank = static_cast<int64_t>(data_order->size());
    const int64_t moved = std::find(data_order->begin(), data_order->end(), rank - 1) - data_order->begin();
    const json data_relayout = {
        {"op", "relayout"}, {"stage", f.name}, {"source", r.data}, {"order", *data_order}, {"name", data}};
    s = concat_steps({json::array({data_relayout}), transposing_copy_steps(data, rank, moved, r.data), s});
    data_pad = 4;
  } else {
    data_pad = data_copy_pad(f, r, 32, true, sizes, rows_swept);
  }
  s.push_back(
      schedule_step("cache_read", f.name, {{"source", relaid}, {"scope", "shared"}, {"at", at}, {"swizzle", true}}));
  s.push_back(
      schedule_step("cache_read", f.name, {{"source", data}, {"scope", "shared"}, {"at", at}, {"pad", data_pad}}));
  s.push_back(schedule_step("tensor_core", f.name, {{"shape", "m64nNk8"}, {"precision", precision}}));
  s.push_back(
      schedule_step("launch_bounds", f.name,
                    {{"max_threads", 256},
                     {"min_blocks", precision == "tf32" && depth <= 3 && !two_rows && !row_taps_share ? 2 : 1}}));
  s.push_back(schedule_step("pipeline", f.name, {{"loop", at}, {"depth", depth}}));
  return s;
}

}  // namespace

std::optional<ConvolutionRoles> convolution_roles(const FuncDef& f) {
  auto loads = f.product_loads();
  if (!loads || f.vars.size() < 2) return std::nullopt;
  ConvolutionRoles r;
  r.columns = f.vars.back();
  Expr data = loads->first, weights = loads->second;
  if (!reads_var(data, r.columns)) std::swap(data, weights);
  if (!reads_var(data, r.columns) || reads_var(weights, r.columns)) return std::nullopt;
  r.data = data->name;
  r.weights = weights->name;
  if (r.data == r.weights) return std::nullopt;
  for (size_t i = 0; i + 1 < f.vars.size(); ++i) {
    const std::string& v = f.vars[i];
    if (r.channels.empty() && reads_var(weights, v) && !reads_var(data, v))
      r.channels = v;
    else
      r.outer.push_back(v);
  }
  for (const auto& rv : f.body->rvars) {
    if (r.channel_sum.empty() && whole_index(data, rv.name) && whole_index(weights, rv.name))
      r.channel_sum = rv.name;
    else
      r.taps.push_back(rv.name);
  }
  return r;
}

std::vector<Sketch> convolution_tile_sketches(const FuncDef& f, const SizeBindings& sizes, bool channels_last) {
  std::vector<Sketch> out;
  auto roles = convolution_roles(f);
  if (!roles) return out;
  const ConvolutionRoles& r = *roles;
  const int64_t columns = pure_extent(f, r.columns, sizes);
  const int64_t channels = r.channels.empty() ? 1 : pure_extent(f, r.channels, sizes);
  const int64_t tx = pow2_at_most(columns, 32);
  std::vector<std::pair<int64_t, int64_t>> tiles = {{4, 4}, {8, 4}, {4, 2}, {2, 4}};
  if (r.channels.empty()) tiles = {{1, 4}, {1, 2}, {1, 8}};
  for (auto [rm, rn] : tiles) {
    if (columns <= tx) rn = 1;
    const int64_t ty = r.channels.empty() ? 1 : pow2_at_most(std::max<int64_t>(1, channels / rm), 8);
    add_register_tile(out, f, r, rm, rn, tx, ty, "", json::array());
  }
  // Rows shorter than a warp (a 3-D convolution's last side of 10): the last two output
  // loops fused into the columns, so that a warp's lanes run along both.
  const auto fused = rows_fused_into_columns(f, r);
  if (columns < 32 && fused) {
    const int64_t fused_tx = pow2_at_most(columns * pure_extent(f, r.outer.back(), sizes), 32);
    for (auto [rm, rn] : std::vector<std::pair<int64_t, int64_t>>{{4, 2}, {8, 2}, {4, 4}}) {
      if (r.channels.empty()) rm = 1;
      const int64_t ty = r.channels.empty() ? 4 : pow2_at_most(std::max<int64_t>(1, channels / rm), 8);
      add_register_tile(out, f, fused->roles, rm, rn, fused_tx, ty, fused->text, fused->first);
    }
  }
  // Channels that are not a multiple of 16 (24) take the mma.sync tiles in blocks of the
  // next multiple of 16 (the channels past the end idle), and no warpgroup tile.
  const bool whole_channels = channels % 16 == 0;
  if (!r.channels.empty() && !r.channel_sum.empty() && channels >= 16) {
    const int64_t sum = reduction_var_extent(f, r.channel_sum, sizes);
    const int64_t kc = sum % 16 == 0 ? 16 : sum % 8 == 0 ? 8 : 0;
    const int64_t bc = !whole_channels       ? std::min<int64_t>(128, (channels + 15) / 16 * 16)
                       : channels % 128 == 0 ? 128
                       : channels % 64 == 0  ? 64
                       : channels % 32 == 0  ? 32
                                             : 16;
    // Rows that leave over a quarter of the blocks' 128 columns idle: also with the last two
    // output loops fused into the columns, so that a block's columns span several rows.
    std::vector<ColumnLoops> column_sets = {{r, json::array(), ""}};
    const int64_t column_slots = (columns + 127) / 128 * 128;
    if (4 * columns < 3 * column_slots && fused) column_sets.push_back(*fused);
    if (kc > 0)
      for (const auto& [roles, first, fused_text] : column_sets)
        for (const char* precision : {"tf32", "3xtf32"}) {
          const std::string tile = std::string("implicit GEMM on tensor cores (mma.sync ") + precision +
                                   "): " + std::to_string(bc) + " channels x 128 columns per block" + fused_text + ", ";
          // Also without taps (a 1x1 convolution, a transposed convolution's phase of one
          // tap), so that every phase of a chain has this tile.
          out.push_back(
              {tile + "the channel sum in chunks of " + std::to_string(kc) + " staged per tap in shared memory, 3 deep",
               concat_steps({first, implicit_gemm(f, roles, bc, kc, precision, GemmStaging::per_tap, sizes)})});
          out.push_back(
              {tile + "the channel sum in chunks of 8 staged once for all taps in shared memory, 2 deep",
               concat_steps({first, implicit_gemm(f, roles, bc, 8, precision, GemmStaging::per_chunk, sizes)})});
        }
    // Only where the data is read without padding and every tap moves its index up (a
    // plain convolution's od + kd, not a transposed phase's qw + 1 - tw): the last chunk
    // runs past the fused reduction's end, and the staged copy of such a chunk is bounded
    // above along each dimension but not below.
    if (kc == 0 && taps_move_data_up(f, r))
      for (const auto& [roles, first, fused_text] : column_sets)
        for (const char* precision : {"tf32", "3xtf32"})
          for (const GemmStaging staging : {GemmStaging::per_tap, GemmStaging::per_chunk, GemmStaging::per_block}) {
            // The same words for every stage (a transposed convolution's phases, with and
            // without taps), so that a chain takes this tile on each of them.
            out.push_back({std::string("implicit GEMM on tensor cores (mma.sync ") + precision +
                               "): " + std::to_string(bc) + " channels x 128 columns per block" + fused_text +
                               ", the channel sum of " + std::to_string(sum) +
                               " and the taps walked as one reduction in chunks of 8" +
                               (staging == GemmStaging::per_tap ? " staged in shared memory, 3 deep"
                                : staging == GemmStaging::per_chunk
                                    ? " staged in shared memory, 2 deep"
                                    : ", the block's data and weights staged once in shared memory"),
                           concat_steps({first, implicit_gemm_fused_k(f, roles, bc, precision, staging, sizes)})});
          }
    // Warpgroup tiles: the output channels as N (at most 256, a multiple of 8), the
    // channel sum in whole 128-byte rows of the weights.
    const int64_t bn = channels % 128 == 0 ? 128 : channels % 64 == 0 ? 64 : channels <= 256 ? channels : 0;
    const auto weights_order = weights_relayout_order(f, r);
    const auto data_order = channels_last ? data_relayout_order(f, r) : std::nullopt;
    struct WgmmaTile {
      std::string precision;
      int depth;
      bool two_rows, relaid_data, row_taps_share;
    };
    std::vector<WgmmaTile> wgmma_tiles = {{"tf32", 4, false, false, false},
                                          {"tf32", 3, false, false, false},
                                          {"3xtf32", 3, false, false, false},
                                          {"tf32", 4, true, false, false}};
    if (data_order) {
      for (const auto& t : {WgmmaTile{"tf32", 4, true, true, false}, WgmmaTile{"tf32", 3, false, true, false},
                            WgmmaTile{"3xtf32", 3, false, true, false}})
        wgmma_tiles.push_back(t);
      // A row's taps sharing each step's data: their weights (32 channels x bn each) and the
      // data of two rows, two buffers of each, within a block's shared memory.
      if (!r.taps.empty() && reduction_var_extent(f, r.taps.back(), sizes) <= 3 && bn <= 128)
        for (const bool two : {true, false}) wgmma_tiles.push_back({"tf32", 2, two, true, true});
    }
    if (whole_channels && sum % 32 == 0 && bn % 8 == 0 && weights_order)
      for (const auto& [roles, first, fused_text] : column_sets)
        for (const auto& [precision, depth, two_rows, relaid_data, row_taps_share] : wgmma_tiles) {
          // Two rows where the rows are the block's last loop (the data reads them).
          if (two_rows && (roles.outer.empty() || roles.outer.back() != f.vars[f.vars.size() - 2] ||
                           pure_extent(f, roles.outer.back(), sizes) < 2))
            continue;
          out.push_back(
              {"implicit GEMM on warpgroup tensor cores (wgmma " + precision + "): " + (two_rows ? "2 rows x " : "") +
                   "128 columns x " + std::to_string(bn) + " channels per block" + fused_text +
                   ", the channel sum in chunks of 32 and the taps walked as one loop" +
                   (row_taps_share ? " but for " + r.taps.back() : "") +
                   ", the weights relaid out (taps, channels, channel sum) by a kernel of their own, " +
                   (relaid_data ? "the data relaid out channels last by a transposing kernel of its own, " : "") +
                   (row_taps_share ? "each step's data staged once for every " + r.taps.back() +
                                         " (each reading it at its shift) with their weights (swizzled), "
                                   : "each step's data and weights (swizzled) staged in shared memory, ") +
                   std::to_string(depth) + " deep",
               concat_steps(
                   {first, implicit_gemm_wgmma(f, roles, bn, precision, depth, *weights_order, two_rows,
                                               relaid_data ? data_order : std::nullopt, row_taps_share, sizes)})});
        }
  }
  return out;
}

}  // namespace cusched::search
