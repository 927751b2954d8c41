#pragma once
// Element types of tensors and expressions.
#include <cstdint>
#include <optional>
#include <string>

namespace cusched {

enum class DType { f32, f16, bf16, i32, i64, boolean, f64 };

std::string dtype_name(DType t);  // "f32", "bool", ...
std::optional<DType> dtype_from_name(const std::string& s);
std::string dtype_c_name(DType t);  // CUDA C type: float, __half, ...
int dtype_bytes(DType t);
bool dtype_is_float(DType t);
// The order of float types by width when two operands meet: 1 for f16 and bf16, 2 for
// f32, 3 for f64; 0 for the integer and boolean types.
int float_rank(DType t);

}  // namespace cusched
