#pragma once
// The launch of a hand-written kernel (`cusched check`, `cusched steer --add-kernel`):
// grid and block as X,Y,Z text, from flags or from lines
// `// cusched-launch size=bench grid=X,Y,Z block=X,Y,Z smem=N` in the source.
#include <array>
#include <cstdint>
#include <string>

namespace cusched::tools {

// X[,Y[,Z]] as three positive integers; `what` names it in the error ("grid", "block").
std::array<int64_t, 3> parse_dim(const std::string& text, const std::string& what);

// Fills grid, block (when empty) and dynamic_smem (when negative) from the source's
// cusched-launch line for `size`, read line by line (linear in the source's length).
void read_launch_comment(const std::string& src, const std::string& size, std::string& grid, std::string& block,
                         int64_t& dynamic_smem);

}  // namespace cusched::tools
