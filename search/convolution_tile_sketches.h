#pragma once
// Tiles of a convolution-shaped stage (the sketches of the convolution class): register
// tiles of output channels by output columns on CUDA cores, an implicit GEMM on tensor
// cores (mma.sync, TF32 and 3xTF32) with the output channels as M, the output columns as
// N and the input channels as K, the kernel taps serial around it, and one on warpgroup
// tensor cores (wgmma) with the columns as M and the channels as N. The roles
// are read from the stage's product, never from names. Each sketch schedules the stage
// alone; the caller schedules the pipeline's other stages.
#include <optional>
#include <string>
#include <vector>

#include "dsl/func.h"
#include "dsl/pipeline.h"
#include "search/class_sketches.h"

namespace cusched::search {

// The parts of a sum of products of two loads that a convolution tile needs.
struct ConvolutionRoles {
  std::string data, weights;       // the load that reads `columns`, and the other one
  std::string columns;             // the innermost pure variable, read by the data load
  std::string channels;            // a pure variable only the weights read ("" when none)
  std::vector<std::string> outer;  // the other pure variables, outermost first
  std::string channel_sum;         // a reduction variable both loads read as a whole index ("" when none)
  std::vector<std::string> taps;   // the other reduction variables, in their order
};

// The roles of `f`, or nullopt when it is not a sum of products of two loads of which
// exactly one reads its innermost variable.
std::optional<ConvolutionRoles> convolution_roles(const FuncDef& f);

// Sketches for `f` at `sizes` (the extents pick which tiles divide): register tiles
// always, tensor-core tiles where the output channels and the channel sum allow them.
// Each sketch's idea names its tile without the stage, so that the same tile can be
// picked for each of several convolution stages. With `channels_last`, the warpgroup
// tiles also come with the data copied channels last (relayout; the data must be an
// input of the pipeline).
std::vector<Sketch> convolution_tile_sketches(const FuncDef& f, const SizeBindings& sizes, bool channels_last);

}  // namespace cusched::search
