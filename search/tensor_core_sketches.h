#pragma once
// Tensor-core tiles of a sum of products (the sketches of the matmul class): warpgroup
// MMA (wgmma, TF32) with one operand read from a swizzled shared copy, and warp MMA
// (mma.sync, TF32 and 3xTF32) for a few block and warp shapes. Each sketch schedules
// the stage alone; the caller schedules the pipeline's other stages.
#include <vector>

#include "dsl/func.h"
#include "search/class_sketches.h"

namespace cusched::search {

std::vector<Sketch> tensor_core_tile_sketches(const FuncDef& f);

}  // namespace cusched::search
