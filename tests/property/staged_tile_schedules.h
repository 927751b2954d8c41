#pragma once
// A matmul tile schedule that several property suites build on: defined once here.
#include <string>

#include <nlohmann/json.hpp>

namespace cusched::testing {

// `steps` with the stage's output staged through shared memory (cache_write shared).
inline nlohmann::json with_shared_output(nlohmann::json steps, const std::string& stage) {
  steps.push_back({{"op", "cache_write"}, {"stage", stage}, {"scope", "shared"}});
  return steps;
}

// C = A B on CUDA cores: bm x bn outputs per block, one per thread (threadIdx.y, x),
// K in steps of 8 with A and B staged in shared memory at each step.
inline nlohmann::json cuda_core_staged_tile_steps(int bm, int bn) {
  nlohmann::json s = nlohmann::json::parse(R"([
    {"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 0, "y_factor": 0},
    {"op": "split", "stage": "C", "loop": "k", "factor": 8, "outer": "ko", "inner": "ki"},
    {"op": "reorder", "stage": "C", "loops": ["io", "jo", "ko", "ii", "ji", "ki"]},
    {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "C", "loop": "ii", "axis": "threadIdx.y"},
    {"op": "bind", "stage": "C", "loop": "ji", "axis": "threadIdx.x"},
    {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko"},
    {"op": "cache_read", "stage": "C", "source": "B", "scope": "shared", "at": "ko"}
  ])");
  s[0]["x_factor"] = bm;
  s[0]["y_factor"] = bn;
  return s;
}

}  // namespace cusched::testing
