#include "codegen/interp_rounding.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cusched {

double round_to_format(double x, int precision, int min_exp, int max_exp, bool ties_away) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);  // x = m * 2^e with 0.5 <= |m| < 1, so the leading bit has exponent e - 1
  int exponent = e - 1;
  if (exponent < min_exp) exponent = min_exp;  // subnormal: the quantum stays that of the smallest normal
  int quantum_exp = exponent - (precision - 1);
  double scaled = std::ldexp(x, -quantum_exp);  // exact: a power-of-two scaling
  double integral = ties_away ? std::round(scaled) : std::nearbyint(scaled);
  double r = std::ldexp(integral, quantum_exp);
  double max_finite = std::ldexp(2.0 - std::ldexp(1.0, 1 - precision), max_exp);
  if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

double round_to_f32(double x) { return static_cast<double>(static_cast<float>(x)); }
double round_to_f16(double x) { return round_to_format(x, 11, -14, 15, false); }
double round_to_bf16(double x) { return round_to_format(x, 8, -126, 127, false); }
double round_to_tf32(double x) { return round_to_format(x, 11, -126, 127, true); }

double truncate_to_tf32(double x) {
  const float f = static_cast<float>(x);
  if (!std::isfinite(f)) return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits &= 0xFFFFE000u;
  float t;
  std::memcpy(&t, &bits, sizeof t);
  return t;
}

static double truncate_saturating(double x, double lo, double hi) {
  if (std::isnan(x)) return 0;
  double t = std::trunc(x);
  return t < lo ? lo : t > hi ? hi : t;
}

double convert_to_dtype(double x, DType t) {
  switch (t) {
    case DType::f32:
      return round_to_f32(x);
    case DType::f16:
      return round_to_f16(x);
    case DType::bf16:
      return round_to_bf16(x);
    case DType::f64:
      return x;
    case DType::i32:
      return truncate_saturating(x, -2147483648.0, 2147483647.0);
    case DType::i64:
      return truncate_saturating(x, -9223372036854775808.0, 9223372036854775807.0);
    case DType::boolean:
      return x != 0 ? 1.0 : 0.0;
  }
  return x;
}

}  // namespace cusched
