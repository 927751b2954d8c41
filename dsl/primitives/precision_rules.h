#pragma once
// Which operand precisions a problem's tolerance admits.
#include <string>

#include "dsl/precision.h"

namespace cusched {

// Unit roundoff of an operand precision.
double precision_unit_roundoff(Precision precision);
// Throws precision-exceeds-tolerance when `precision` is too coarse for rtol/atol.
void require_precision_within_tolerance(Precision precision, double atol, double rtol, const std::string& stage);

}  // namespace cusched
