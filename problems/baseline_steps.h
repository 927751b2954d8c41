#pragma once
// Schedule steps shared by the problems' baseline schedules.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched {

// The loop names of a flat grid, one scheme for every schedule that builds one: the
// fused loop, its float4 split (vectors x lanes) and its split over blocks x threads.
struct FlatGridNames {
  static constexpr const char* fused = "flat";
  static constexpr const char* vectors = "flat_vec";
  static constexpr const char* lanes = "flat_lane";
  static constexpr const char* blocks = "flat_block";
  static constexpr const char* threads = "flat_thread";
  static constexpr const char* chunk = "flat_chunk";  // strided lanes: a block's lanes x threads
};

// Appends the steps that fuse the adjacent loops `loops` (outermost first) of `stage`
// into one loop named `name` (the intermediate fused loops `name`1, `name`2, ...);
// returns the fused loop's name, the loop itself when there is only one.
std::string fuse_loops(nlohmann::json& steps, const std::string& stage, const std::vector<std::string>& loops,
                       const std::string& name);

// Steps that fuse the adjacent pure loops `loops` (outermost first) of `stage` into
// one loop, split it by `threads` and bind the outer part to blockIdx.x and the inner
// part to threadIdx.x: one thread per point of those loops (a bounds guard where the
// extent is not a multiple of `threads`), the rest serial inside. With `vector` > 1
// each thread takes `vector` adjacent points as one vector access (the fused loop
// split by `vector` first, its inner part vectorized).
nlohmann::json flat_grid_steps(const std::string& stage, const std::vector<std::string>& loops, int64_t threads = 256,
                               int64_t vector = 1);

// Steps for the same grid with `lanes` points a thread `threads` apart (the fused loop
// split by threads x lanes over blocks, then by threads: lanes outside threads, unrolled),
// so that each of a warp's accesses is to neighbouring points where a vector access is
// not possible (rows whose length is not a multiple of the vector, reads at strided or
// interleaved indices).
nlohmann::json strided_flat_grid_steps(const std::string& stage, const std::vector<std::string>& loops, int64_t threads,
                                       int64_t lanes);

// Steps that combine the reduction loops `rvars` of `stage` (fused, split by `threads`)
// across the threads of a block (kind "warp" for 32 threads or fewer, else "block"):
// each thread reduces its share serially, then the threads combine.
nlohmann::json cross_thread_reduction_steps(const std::string& stage, const std::vector<std::string>& rvars,
                                            int64_t threads);

// Steps for a reduction stage with one block per output point: the pure loops `vars`
// fused onto blockIdx.x (none: a single block) and the reduction across `threads`
// threads (cross_thread_reduction_steps).
nlohmann::json block_per_point_steps(const std::string& stage, const std::vector<std::string>& vars,
                                     const std::vector<std::string>& rvars, int64_t threads);

// Steps for a scan stage over `vars` along `scan` in which each thread scans whole
// lines: the other pure loops (outside the scanned one, which a scan stage's loops have
// innermost) fused into a flat grid of `threads`
// per block (none: a single thread), the scanned loop serial and innermost. Coalesced
// when the scanned variable is not the innermost dimension (neighbouring threads read
// neighbouring elements at every step).
nlohmann::json serial_scan_steps(const std::string& stage, const std::vector<std::string>& vars,
                                 const std::string& scan, int64_t threads);

// Steps for a scan stage over `vars` along `scan` with one block per line: the other
// pure loops fused and bound to blockIdx.x (none: a single block); the
// scanned loop split into tiles of `threads` x `items` x `vector` elements (loops
// scan_tile, scan_thread, scan_item and, with `vector` > 1, scan_lane), scan_thread
// scanned across the threads (cross_thread_scan), scan_item unrolled and scan_lane
// vectorized: each thread reads `items` vectors of `vector` adjacent elements.
nlohmann::json block_scan_steps(const std::string& stage, const std::vector<std::string>& vars, const std::string& scan,
                                int64_t threads, int64_t items, int64_t vector);

// Steps that tile the pure loops `i` (rows) and `j` (columns) of `stage` by 16 x 16 and
// bind the tiles to blockIdx.y / blockIdx.x and the points to threadIdx.y / threadIdx.x;
// a loop named in `batch` (may be empty) goes to blockIdx.z.
nlohmann::json tiled_grid_steps(const std::string& stage, const std::string& i, const std::string& j,
                                const std::string& batch = "");

// Steps for a 4-D pointwise stage over (b, c, h, w): w split by 4 into a float4
// vector, h split by 4 onto threadIdx.y, w's outer part onto threadIdx.x, and b, c and
// h's outer part onto blockIdx.z, .y and .x: one 16-byte access per thread.
nlohmann::json vector4_grid_steps(const std::string& stage, const std::string& b, const std::string& c,
                                  const std::string& h, const std::string& w);

// Steps for a 2-D pointwise stage over (i, j): j split by 4 into a float4 vector and
// then by `threads` onto threadIdx.x, the rest of j onto blockIdx.x and i onto
// blockIdx.y: one 16-byte access per thread, consecutive threads on consecutive vectors.
nlohmann::json row_vector4_grid_steps(const std::string& stage, const std::string& i, const std::string& j,
                                      int threads);

// The shape of a tensor-core tile: block tile bm x bn, warp tile wm x wn (the block
// has (bm / wm) x (bn / wn) warps), K staged bk at a time, and the operand precision
// (tf32, or 3xtf32 for nearly f32 accuracy at three times the tensor-core work).
struct TensorCoreTile {
  int bm = 128, bn = 128, wm = 64, wn = 32, bk = 32;
  std::string precision = "tf32";
  int pipeline_depth = 0;         // > 1: the staged copies software-pipelined (cp.async) this deep
  std::string shape = "m16n8k8";  // the mma shape: m16n8k8 (tf32, 3xtf32) or m16n8k16 (bf16, f16)
};

// Steps for a sum-of-products stage `stage`(i, j) = sum(k, ..) on tensor cores (m16n8k8):
// i's block tiles onto blockIdx.y, j's onto blockIdx.x (`batch`, if not empty, onto
// blockIdx.z), the warps onto threadIdx.z / threadIdx.y, both sources staged in shared
// memory at each K step. The sources are padded by `a_pad` and `b_pad` elements per
// row so that the warps' fragment reads fall in different banks: 4 when a source's
// rows run along k, 8 when they run along i or j.
nlohmann::json tensor_core_tile_steps(const std::string& stage, const std::string& i, const std::string& j,
                                      const std::string& k, const std::string& a, int a_pad, const std::string& b,
                                      int b_pad, const std::string& batch = "", TensorCoreTile tile = {});

// Steps for a sum-of-products stage `stage` = sum(k, ..) on warpgroup tensor cores
// (tensor_core m64nNk8 in `precision` tf32 or 3xtf32, m64nNk16 in bf16 or f16, whose
// sources must then be of that type): the loop `n` tiles by `bn` (up to 256) onto blockIdx.y,
// the loop `m` by 64 x `warpgroups` onto blockIdx.x (`batch`, if not empty, onto
// blockIdx.z), its warpgroups onto threadIdx.y. The factor that varies with `n`,
// `b_source`, must run along k in memory: its copy is staged K-major with the 128-byte
// swizzle, which the tensor cores read; `a_source` (varying with `m`) is staged padded by
// `a_pad` and loaded into registers. Both copies are made at each k step of 128 bytes
// (32 tf32 or 64 16-bit elements) and software-pipelined `depth` deep (3 or more keeps a
// k step in flight) on the copy `engine` (the tensor engine needs a_pad 0). For C = A @ B with B (K, N) row-major,
// take m = j and n = i: the instruction computes C's transpose.
nlohmann::json wgmma_tile_steps(const std::string& stage, const std::string& m, const std::string& n,
                                const std::string& k, const std::string& a_source, int a_pad,
                                const std::string& b_source, const std::string& batch = "", int bn = 256,
                                int warpgroups = 2, int depth = 4, const std::string& precision = "tf32",
                                const std::string& engine = "cp.async");

// nn.Linear's product G(i, j) = sum_k X(i, k) * weight(j, k) (both factors along k) as
// wgmma_tile_steps with X in registers and weight read by the tensor cores, the kernel
// declared __launch_bounds__(256, 1) (the measured difference with and without the bound
// is within the run-to-run spread of these kernels; bench/results/).
nlohmann::json linear_wgmma_steps(const std::string& stage = "G");

// Concatenation of step lists.
// Steps for a row-wise normaliser Y(row, col) = f(X(row, col), R1(row), R2(row), ...)
// whose row reductions R1, R2, ... (over `rvar`, the same extent as `col`) are spread
// over a thread-block cluster of `cluster` blocks: rows on blockIdx.y, each block of
// `threads` threads owns every cluster-th chunk of 4 * threads columns (one float4 per
// thread per chunk), computes its part of each reduction there (reading the chunks that
// it later normalises, so its re-reads are of a small recent slice), and the reductions are combined
// within the block and then across the cluster through distributed shared memory.
// The reductions read the chunk as four scalar loads per thread (unrolled), or with
// `vector_loads` as one float4 per thread (a vectorized reduction loop), the same
// elements that the thread later normalises.
nlohmann::json cluster_row_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                            const std::vector<std::string>& reductions, const std::string& rvar,
                                            int64_t cluster, int64_t threads, bool vector_loads = false);

// Steps for the same row-wise normaliser with the row read from memory once: each block
// of the cluster owns one contiguous slice of the row (`split parts`), copies its slice
// of `source` into shared memory (16-byte copies), and the reductions, computed at the
// cluster loop, and the output read that copy (`cache_read share`); threads read float4
// from it. The slice takes 4 * D / cluster bytes of shared memory (227 KiB at most).
// With `registers` > 0 each thread keeps its last `registers` float4 of the slice in
// registers instead (cache_read registers; the loops over a thread's float4 unrolled), so
// that the shared copy shrinks by registers * 16 * threads bytes. Without `vector_lanes`
// a thread's 4 values of a chunk lie a block's width apart (unrolled, not a float4), so
// that a warp's accesses stay contiguous where rows are not whole float4s.
nlohmann::json cluster_slice_normalizer_steps(const std::string& out, const std::string& row, const std::string& col,
                                              const std::vector<std::string>& reductions, const std::string& rvar,
                                              const std::string& source, int64_t cluster, int64_t threads,
                                              int64_t registers = 0, bool vector_lanes = true);

// Steps for a reduction over the middle dimension of (B, R, J), stage(b, j) = reduce over
// r of source(b, r, j): one block per b (blockIdx.x), each thread owning `columns`
// adjacent j (threadIdx.x, unrolled), r in steps of `rows` whose rows x columns values are
// staged in registers first (cache_read register), so that all their loads go out before
// the combining arithmetic.
nlohmann::json middle_dim_register_steps(const std::string& stage, const std::string& source, int64_t columns,
                                         int64_t rows);

// The convolutions' TF32 implicit GEMM on `stage` (loops n, oh, ow, o, rc, kh, kw; input
// X, weights "weight"): per block one output row of 128 columns x all output channels,
// 8 warps of 32 channels x 64 columns, rc in chunks of 16 with kh and kw serial inside;
// at each (kh, kw) the chunk's input rows (padded by 8) and that tap's weights are staged
// in shared memory with a `depth`-buffer cp.async pipeline at kw; 2 blocks of 256
// threads per SM.
nlohmann::json conv_row_implicit_gemm_steps(const std::string& stage, int64_t depth);

// f32 operands and fast math (exp, log and division as approximate intrinsics) for
// each of `stages`.
nlohmann::json fast_math_steps(const std::vector<std::string>& stages);

nlohmann::json concat_steps(std::initializer_list<nlohmann::json> parts);

// `steps` without the steps that name `stage`, then `stage` folded into the final store of
// the reduction it reads (fuse_epilogue).
nlohmann::json with_folded_epilogue(const nlohmann::json& steps, const std::string& stage);

}  // namespace cusched
