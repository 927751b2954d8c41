#pragma once
// Which operand precisions a problem's tolerance admits.
#include <string>

#include "dsl/precision.h"

namespace cusched {

// Unit roundoff of an operand precision.
double precision_unit_roundoff(Precision precision);
// Coarser than 3xTF32 (TF32, BF16, F16, FP8): a kernel of this precision answers a
// tolerance of about 1e-2 only, and its rounding may fail a tighter one.
bool coarser_than_x3tf32(Precision precision);
// Throws precision-exceeds-tolerance when `precision` is too coarse for rtol/atol.
void require_precision_within_tolerance(Precision precision, double atol, double rtol, const std::string& stage);

}  // namespace cusched
