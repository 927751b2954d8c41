#pragma once
// The hardware dimension of a GPU axis, shared by lowering, the emitter and the interpreter.
#include "dsl/schedule_state.h"

namespace cusched {

// 0, 1 or 2 for the x, y or z axis of the grid or the block; -1 for any other axis.
inline int gpu_axis_dimension(GpuAxis a) {
  switch (a) {
    case GpuAxis::BlockX:
    case GpuAxis::ThreadX:
      return 0;
    case GpuAxis::BlockY:
    case GpuAxis::ThreadY:
      return 1;
    case GpuAxis::BlockZ:
    case GpuAxis::ThreadZ:
      return 2;
    default:
      return -1;
  }
}

}  // namespace cusched
