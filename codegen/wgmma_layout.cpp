#include "codegen/wgmma_layout.h"

namespace cusched {

WgmmaElement wgmma_a_element(int thread, int i, Precision precision) {
  const int w = thread / 32, g = (thread % 32) / 4, q = thread % 4;
  if (wgmma_k(precision) == kWgmmaK16) return {16 * w + g + 8 * ((i / 2) % 2), 2 * q + i % 2 + 8 * (i / 4)};
  return {16 * w + g + 8 * (i % 2), q + 4 * (i / 2)};
}

WgmmaElement wgmma_accumulator(int thread, int j) {
  const int w = thread / 32, g = (thread % 32) / 4, q = thread % 4;
  return {16 * w + g + 8 * ((j / 2) % 2), 8 * (j / 4) + 2 * q + j % 2};
}

int64_t wgmma_b_address(int64_t start, int k, int n, int element_bytes) {
  const int64_t a =
      start + kWgmmaSwizzleAtomBytes * (n / 8) + kWgmmaSwizzleRowBytes * (n % 8) + int64_t{element_bytes} * k;
  return a ^ (((a >> 7) & 7) << 4);
}

int wgmma_k(Precision precision) {
  return precision == Precision::bf16 || precision == Precision::f16 ? kWgmmaK16 : kWgmmaK;
}

DType wgmma_operand_type(Precision precision) {
  return precision == Precision::bf16 ? DType::bf16 : precision == Precision::f16 ? DType::f16 : DType::f32;
}

int wgmma_a_elements(Precision precision) {
  return wgmma_k(precision) == kWgmmaK16 ? kWgmmaAElements16 : kWgmmaAElements;
}

}  // namespace cusched
