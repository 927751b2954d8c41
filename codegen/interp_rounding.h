#pragma once
// Exact emulation of the GPU's floating-point formats on the host: every value the
// interpreter holds is a double, rounded to the format of its type after each
// operation and on every store.
#include "dsl/dtype.h"

namespace cusched {

// Rounds x to a binary format with `precision` significand bits (implicit bit
// included) and the exponent range of `min_exp` (smallest normal exponent) ..
// `max_exp` (largest exponent), with subnormals and overflow to infinity.
// ties_away = false: round to nearest, ties to even; true: ties away from zero.
double round_to_format(double x, int precision, int min_exp, int max_exp, bool ties_away);

double round_to_f32(double x);   // IEEE binary32, nearest-even
double round_to_f16(double x);   // IEEE binary16, nearest-even
double round_to_bf16(double x);  // bfloat16, nearest-even
double round_to_tf32(double x);  // TF32 (10 mantissa bits, f32 range), nearest, ties away (cvt.rna.tf32.f32)
double truncate_to_tf32(
    double x);  // the f32 value with its 13 low mantissa bits cleared (tf32 operands read from f32 bits)

// Converts x to dtype t the way a store into a buffer of that type does: floats are
// rounded, integers truncate toward zero (saturating at the type's range, NaN -> 0),
// bool is x != 0, f64 is unchanged.
double convert_to_dtype(double x, DType t);

}  // namespace cusched
