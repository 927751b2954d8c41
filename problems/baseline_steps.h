#pragma once
// Schedule steps shared by the problems' baseline schedules.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cusched {

// Steps that fuse the adjacent pure loops `loops` (outermost first) of `stage` into
// one loop, split it by `threads` and bind the outer part to blockIdx.x and the inner
// part to threadIdx.x: one thread per point of those loops, the rest serial inside.
nlohmann::json flat_grid_steps(const std::string& stage, const std::vector<std::string>& loops, int threads = 256);

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

// Concatenation of step lists.
nlohmann::json concat_steps(std::initializer_list<nlohmann::json> parts);

}  // namespace cusched
