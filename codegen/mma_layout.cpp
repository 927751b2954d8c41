#include "codegen/mma_layout.h"

#include "dsl/error.h"

namespace cusched {

namespace {

MmaLayout tf32_m16n8k8() {
  MmaLayout l;
  l.k = 8;
  l.k_step = 1;
  l.a_count = 4;
  l.b_count = 2;
  l.a_row = {0, 8, 0, 8};
  l.a_k = {0, 0, 4, 4};
  l.b_k = {0, 4};
  return l;
}

// Two 16-bit operands per register, the lower-indexed element in the low half.
MmaLayout half_m16n8k16() {
  MmaLayout l;
  l.k = 16;
  l.k_step = 2;
  l.a_count = 8;
  l.b_count = 4;
  l.a_row = {0, 0, 8, 8, 0, 0, 8, 8};
  l.a_k = {0, 1, 0, 1, 8, 9, 8, 9};
  l.b_k = {0, 1, 8, 9};
  return l;
}

}  // namespace

const MmaLayout& mma_layout(const std::string& shape) {
  static const MmaLayout k8 = tf32_m16n8k8(), k16 = half_m16n8k16();
  if (shape == "m16n8k8") return k8;
  if (shape == "m16n8k16") return k16;
  fail("unknown-mma-shape", "The tensor-core shape '" + shape + "' is not known.", "Use m16n8k8 or m16n8k16.");
}

}  // namespace cusched
