#pragma once
// The per-lane fragment layouts of the warp-wide tensor-core instructions that the IR's
// Mma statement stands for (PTX ISA, mma.sync .row.col with f32 accumulators). With
// group = lane / 4 and quad = lane % 4, lane `lane` holds:
//   A element i: row group + a_row[i], column quad * k_step + a_k[i]   (A is m x k)
//   B element i: row quad * k_step + b_k[i], column group              (B is k x n)
//   C element j: row group + c_row[j], column 2 * quad + c_col[j]      (C is m x n)
// Lowering uses it to give each lane its operand expressions, the interpreter to
// assemble the warp's matrices, the emitter to pack 16-bit operands in pairs.
#include <array>
#include <string>
#include <vector>

namespace cusched {

struct MmaLayout {
  int m = 16, n = 8, k = 8;
  int k_step = 1;
  int a_count = 4, b_count = 2;
  std::vector<int> a_row, a_k, b_k;
  std::array<int, 4> c_row{0, 0, 8, 8}, c_col{0, 1, 0, 1};
};

// The layout of "m16n8k8" (tf32 operands) or "m16n8k16" (bf16 or f16 operands).
const MmaLayout& mma_layout(const std::string& shape);

}  // namespace cusched
