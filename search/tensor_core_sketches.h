#pragma once
// Tensor-core tiles of a sum of products (the sketches of the matmul class): warpgroup
// MMA (wgmma, TF32) with one operand read from a swizzled shared copy, and warp MMA
// (mma.sync, TF32 and 3xTF32) for a few block and warp shapes. Each sketch schedules
// the stage alone; the caller schedules the pipeline's other stages.
#include <vector>

#include "dsl/func.h"
#include "problems/problem.h"
#include "search/class_sketches.h"

namespace cusched::search {

std::vector<Sketch> tensor_core_tile_sketches(const FuncDef& f);

// Split-K: a product over (i, j), each side 64 or more, whose 128 x 128 output tiles are
// fewer than the machine's multiprocessors and whose reduction is long (a 256 x 256 output
// over k of 524288) split into P parts of k by rfactor (P the largest power of two up to 256
// that keeps the tiles x P within four waves and each part 512 long or more; a short last
// part reads zero past the end), each part a tensor-core tile with the parts on the batch
// loop, and the parts summed by one thread per output. Each sketch schedules the product
// alone.
std::vector<Sketch> split_k_tensor_core_sketches(const Problem& p, const FuncDef& f);

}  // namespace cusched::search
