#pragma once
// Which operand precisions a problem's tolerance admits.
#include <string>

namespace cusched {

// Unit roundoff of an operand precision.
double precision_unit_roundoff(const std::string& precision);
// Throws precision-exceeds-tolerance when `precision` is too coarse for rtol/atol.
void require_precision_within_tolerance(const std::string& precision, double atol, double rtol,
                                        const std::string& stage);

}  // namespace cusched
