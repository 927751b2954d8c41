#include "codegen/ldmatrix.h"

namespace cusched {

LdMatrixSource ldmatrix_source(int matrix, int lane, int element, int per_word, bool transpose) {
  if (transpose) return {8 * matrix + 2 * (lane % 4) + element, lane / 4};
  return {8 * matrix + lane / 4, (lane % 4) * per_word + element};
}

}  // namespace cusched
