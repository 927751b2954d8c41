#include "runtime/element_codec.h"

#include <cmath>
#include <cstring>

namespace cusched::runtime {

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));  // inf / nan
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);  // underflow to zero
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  float magnitude;
  if (exp == 0)
    magnitude = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    magnitude = mant ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -magnitude : magnitude;
}

uint16_t float_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float bf16_bits_to_float(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double load_element(DType t, const void* p) {
  switch (t) {
    case DType::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::f64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::f16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return half_bits_to_float(v);
    }
    case DType::bf16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_bits_to_float(v);
    }
    case DType::i32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::i64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::boolean: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return v ? 1.0 : 0.0;
    }
  }
  return 0;
}

void store_element(DType t, double v, void* p) {
  switch (t) {
    case DType::f32: {
      float x = static_cast<float>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::f64: {
      std::memcpy(p, &v, 8);
      return;
    }
    case DType::f16: {
      uint16_t x = float_to_half_bits(static_cast<float>(v));
      std::memcpy(p, &x, 2);
      return;
    }
    case DType::bf16: {
      uint16_t x = float_to_bf16_bits(static_cast<float>(v));
      std::memcpy(p, &x, 2);
      return;
    }
    case DType::i32: {
      int32_t x = static_cast<int32_t>(std::llround(v));
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::i64: {
      int64_t x = std::llround(v);
      std::memcpy(p, &x, 8);
      return;
    }
    case DType::boolean: {
      uint8_t x = v != 0 ? 1 : 0;
      std::memcpy(p, &x, 1);
      return;
    }
  }
}

}  // namespace cusched::runtime
