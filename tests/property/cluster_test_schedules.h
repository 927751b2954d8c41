#pragma once
// Schedules that several test suites (property, gpu_property) run: defined once here.
#include <nlohmann/json.hpp>

namespace cusched::testing {

// argmax over dim 1 with r split by 4: each block reduces 4 rows of r across a warp,
// then the blocks of a cluster (one per group of 4 rows, 5 at the small size where
// D1 = 17) combine their partial maxima and indices.
inline nlohmann::json argmax_over_a_cluster_steps() {
  return nlohmann::json::parse(R"([
    {"op": "split", "stage": "I", "loop": "r", "factor": 4, "outer": "ro", "inner": "ri"},
    {"op": "bind", "stage": "I", "loop": "b", "axis": "blockIdx.y"},
    {"op": "cross_thread_reduce", "stage": "I", "loop": "ri", "kind": "warp"},
    {"op": "cross_thread_reduce", "stage": "I", "loop": "ro", "kind": "cluster"}])");
}

}  // namespace cusched::testing
