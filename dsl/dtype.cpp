#include "dsl/dtype.h"

namespace cusched {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::boolean:
      return "bool";
    case DType::f64:
      return "f64";
  }
  return "?";
}

std::optional<DType> dtype_from_name(const std::string& s) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::boolean, DType::f64})
    if (dtype_name(t) == s) return t;
  return std::nullopt;
}

std::string dtype_c_name(DType t) {
  switch (t) {
    case DType::f32:
      return "float";
    case DType::f16:
      return "__half";
    case DType::bf16:
      return "__nv_bfloat16";
    case DType::i32:
      return "int";
    case DType::i64:
      return "long long";
    case DType::boolean:
      return "bool";
    case DType::f64:
      return "double";
  }
  return "?";
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::i64:
    case DType::f64:
      return 8;
    case DType::boolean:
      return 1;
  }
  return 0;
}

bool dtype_is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }

int float_rank(DType t) {
  switch (t) {
    case DType::f16:
    case DType::bf16:
      return 1;
    case DType::f32:
      return 2;
    case DType::f64:
      return 3;
    default:
      return 0;
  }
}

}  // namespace cusched
