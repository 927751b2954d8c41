#pragma once
// Steps and helpers that several classes' sketches share (class_sketches.cpp,
// normalisation_sketches.cpp): loads and reduction extents read from a stage, flat grids,
// reductions across threads or one block per point, thread tiles, the rest of a pipeline
// scheduled around the stages a sketch tiles, and the fold of a pointwise output into a
// reduction's final store.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "problems/problem.h"
#include "search/class_sketches.h"
#include "search/cost_model.h"

namespace cusched::search {

// Loads in `e`: (name, whether every index is a plain variable, is a stage).
void collect_loads(const Expr& e, std::vector<std::tuple<std::string, bool, bool>>& out);

// The names of `f`'s reduction variables, outermost first (none for a pointwise stage).
std::vector<std::string> reduction_var_names(const FuncDef& f);

// One thread per point of the stage's pure loops (fused), `threads` per block,
// optionally `vec` contiguous points per thread as one vector access.
void flat_grid(nlohmann::json& steps, const FuncDef& f, int64_t threads, int64_t vec);

// The stage's reduction loops fused, split by `threads` and combined across them.
void cross_thread(nlohmann::json& steps, const FuncDef& f, int64_t threads);

// One block per output point, the reduction combined across `threads` threads.
void block_per_point(nlohmann::json& steps, const FuncDef& f, int64_t threads);

// A 2-D thread tile over the last two pure loops, batch loops fused onto blockIdx.z,
// and optionally the reduction split by `kt` with both operands staged in shared memory.
void matmul_tile(nlohmann::json& steps, const Problem& p, const FuncDef& f, int64_t ti, int64_t tj, int64_t kt);

// A register-tiled product on CUDA cores: blocks of ty x tx threads, each computing rm rows x
// rn columns of the last two pure loops in unrolled register accumulators (its columns tx
// apart, so a warp's reads of the staged operand spread over the banks), the reduction in
// steps of `kt` with the product's input operands staged in shared memory at each step,
// batch loops fused onto blockIdx.z. False (and `steps` unchanged) where the stage has
// fewer than two pure loops or more than one reduction loop.
bool register_tiled_matmul(nlohmann::json& steps, const Problem& p, const FuncDef& f, int64_t rm, int64_t rn,
                           int64_t tx, int64_t ty, int64_t kt);

// A sum of products of two different factors over at least two output loops (C(i, j) =
// sum A(i, k) B(k, j), a convolution, grouped ones included): the stages a matrix tile
// fits. A sum of one load times itself (a sum of squares: a variance) is not one.
bool is_contraction(const FuncDef& f);

// Reductions of at most this many elements per point are computed serially by one thread
// per point (pooling windows, short sums) rather than across the threads of a block.
constexpr int64_t kSerialReductionMax = 32;
// Fewer points than this (two per multiprocessor), each reducing at least
// kClusterReductionMin elements, are split over clusters of blocks.
constexpr int64_t kFewPoints = 2 * kMultiprocessors, kClusterReductionMin = 65536;
// Reductions of at most this many elements per point, with enough points for a warp each to
// fill the machine, are combined by one warp per point, kWarpPointsPerBlock points a block.
constexpr int64_t kWarpReductionMax = 512, kWarpPointsPerBlock = 8;

// A serial reduction's loads in flight per thread where it is unrolled
// (unroll_serial_reduction).
constexpr int64_t kSerialReductionUnroll = 8;

// Steps that split f's innermost reduction loop by kSerialReductionUnroll and unroll the
// inner part (in the loop's own order: the same sums).
void unroll_serial_reduction(nlohmann::json& steps, const FuncDef& f);

// A reduction stage that no tile covers, by the points it computes and the elements each
// reduces at the problem's default size: up to kSerialReductionMax elements, a flat grid of
// threads that each reduce one point serially (the reduction loops unrolled where they are
// short at every size); few long reductions (kFewPoints, kClusterReductionMin) split over a
// cluster of blocks per point, the block (256 to 1024 threads) and the cluster (8, or 16
// where every size splits into 16 parts) as large as filling the machine takes; up to 4096
// elements whose loads are rows apart while neighbouring points are neighbouring elements
// (a minimum over NCHW's channels), at enough points for a thread each to fill the machine,
// a flat grid of one thread per point reducing serially, unrolled by 8; up to
// kWarpReductionMax elements at enough points, a warp per point (its lanes reading
// consecutive elements and combining by shuffles, no block barrier); otherwise
// one block per point whose threads (the power of two up to 256 that covers the extent, up
// to 1024 where 256 per point leave the machine short and the extent is long) combine the
// reduction.
void reduction_grid(nlohmann::json& steps, const Problem& p, const FuncDef& f);

// Whether a contraction stage reads `stage` (inlined there, a pointwise producer would be
// computed again for every point of the contraction's other operand).
bool read_by_contraction(const Problem& p, const std::string& stage);

// Whether the points of pointwise stage `f` can be read and written as float4 along its
// innermost variable: its extent at the default size is a multiple of 4 and every load,
// through the producers that schedule_rest inlines, reads along it contiguously or not
// at all (not the interleave of a transposed convolution's phases, which reads x / 2).
bool float4_rows(const Problem& p, const FuncDef& f);

// Appends the grid of pointwise stage `f`: 4 points a thread where the default size has
// a multiple of 4 points, as one float4 where float4_rows holds, else 4 points `threads`
// apart (strided_flat_grid_steps: each warp access to neighbouring points); one point a
// thread otherwise.
void pointwise_grid(nlohmann::json& steps, const Problem& p, const FuncDef& f, int64_t threads);

// Steps for the stages other than `skip`: pointwise producers inlined (those a contraction
// reads are computed on their own flat grid), the rest scheduled as a flat grid
// (pointwise: pointwise_grid) or by reduction_grid (reductions).
void schedule_rest(nlohmann::json& steps, const Problem& p, const std::set<std::string>& skip, int64_t threads);

// The pipeline's pointwise outputs other than `product`: each may be folded into the
// product's final store (fuse_epilogue) when it reads the product alone at its own
// point, through pointwise stages that the sketch inlines; validation refuses the rest.
std::vector<std::string> epilogue_candidates(const Problem& p, const std::string& product);

// Each sketch, then its variant with the epilogue folded in, for every candidate.
void add_with_epilogues(std::vector<Sketch>& out, const Sketch& sketch, const std::vector<std::string>& epilogues);

// Stages with their tile sketches, the lead stage first.
using TiledStages = std::vector<std::pair<const FuncDef*, std::vector<Sketch>>>;

// For each tile of the lead stage (rank i): on every stage of `tiled` its counterpart
// (`counterpart` of the stage's tiles, the lead's tile and i), the rest of the pipeline by
// schedule_rest; where several stages are tiled the idea ends with `several`. Each comes
// with `epilogues` folded in too (add_with_epilogues).
void same_tile_on_each(
    std::vector<Sketch>& out, const Problem& p, const TiledStages& tiled, const std::vector<std::string>& epilogues,
    const std::string& several,
    const std::function<const Sketch&(const std::vector<Sketch>&, const Sketch&, size_t)>& counterpart);

}  // namespace cusched::search
