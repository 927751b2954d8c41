#pragma once
// Host-side reading and writing of single tensor elements of any DType,
// including IEEE half (f16) and bfloat16 (bf16) from their raw 16-bit patterns.
#include <cstdint>

#include "dsl/dtype.h"

namespace cusched::runtime {

uint16_t float_to_half_bits(float f);  // round to nearest even
float half_bits_to_float(uint16_t h);
uint16_t float_to_bf16_bits(float f);  // round to nearest even
float bf16_bits_to_float(uint16_t b);

// The element at `p` (of type `t`) as a double.
double load_element(DType t, const void* p);
// Stores `v` at `p` converted to `t` (integers are rounded; bool is v != 0).
void store_element(DType t, double v, void* p);

}  // namespace cusched::runtime
