#include "dsl/primitives/precision_rules.h"

#include <algorithm>

#include "dsl/error.h"

namespace cusched {

double precision_unit_roundoff(Precision p) {
  switch (p) {
    case Precision::tf32:
    case Precision::f16:
      return 1.0 / 2048;  // 10 explicit mantissa bits
    case Precision::bf16:
      return 1.0 / 256;  // 7 explicit mantissa bits
    case Precision::fp8:
      return 1.0 / 8;  // e4m3: 3 explicit mantissa bits
    case Precision::x3tf32:
      return 1.0 / 2097152;  // a TF32 high part plus a TF32 low part: about 21 bits
    case Precision::f64:
      return 1.0 / 9007199254740992.0;
    case Precision::f32:
      break;
  }
  return 1.0 / 16777216;  // f32
}

bool coarser_than_x3tf32(Precision p) {
  return precision_unit_roundoff(p) > precision_unit_roundoff(Precision::x3tf32);
}

void require_precision_within_tolerance(Precision p, double atol, double rtol, const std::string& stage) {
  // Accumulated rounding of a long dot product is a few units of roundoff times
  // sqrt(K) in practice; a tolerance under twice the operand roundoff cannot hold.
  double need = 2 * precision_unit_roundoff(p);
  if (std::min(atol, rtol) < need) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.0e", std::min(atol, rtol));
    fail("precision-exceeds-tolerance",
         "Operand precision " + precision_name(p) + " for stage '" + stage +
             "' is too coarse for this problem's tolerance (" + buf + ").",
         "Keep f32 operands for this problem, or use the problem's 1e-2 tolerance variant.");
  }
}

}  // namespace cusched
