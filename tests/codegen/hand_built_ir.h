#pragma once
// Small loop-IR programs written by hand, the shapes lowering produces: an
// elementwise kernel with a vectorized inner loop, block and warp reductions, an
// argmax, a large shared-memory tile and a buffer past 2^31 elements.
#include <string>

#include "codegen/ir.h"

namespace cusched::test {

Expr v(const std::string& name);                          // an i32 loop variable
Expr ld(const std::string& buffer, DType t, Expr index);  // a flat-index load
BufferSpec buffer(const std::string& name, DType t, std::vector<int64_t> shape, BufferRole role);

// C[io*256 + ii*stride + offset + v] = A[same] + 2 * B[same] over a (1024, 256) f32 array,
// grid 1024 x block 256/stride, v a vectorized loop of `lanes` lanes.
LoweredProgram elementwise_program(int lanes, int stride, int offset);

// Row sums of A (128, 1024) into B (128): each thread sums 4 elements, exchanges its
// partial through a shared tile (barrier), then AllReduce sum over `width` = 256
// threads of threadIdx.x with the "block" kind.
LoweredProgram block_sum_program();

// Column sums of A (64, 8, 32) over the middle axis into B (64, 32): block (32, 8),
// AllReduce over threadIdx.y.
LoweredProgram y_axis_sum_program();

// Row argmax of A (64, width) into Out (64) i64: block (width), AllReduce argmax.
LoweredProgram argmax_program(int64_t width, const std::string& kind);

// Reverses A (16384) through a 64 KiB shared tile, one block of 256 threads.
LoweredProgram large_shared_program();

// Copies a (65536, 65536) f32 array: flat indices exceed 2^31. The index is
// io * 65536 + ii (io the block loop, ii a serial loop of 65536) unless given.
LoweredProgram wide_copy_program();
LoweredProgram wide_copy_program(Expr index);

// One kernel of one block of 32 threads storing `value` (may use the loop variable t
// and load "A" f32 (32)) into "Out" of type `out_type`; "H" is an f16 input (32).
LoweredProgram scalar_program(Expr value, DType out_type = DType::f32);

}  // namespace cusched::test
