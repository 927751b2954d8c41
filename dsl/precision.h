// Number formats: the operand precision a stage's multiplications round to (the
// precision and tensor_core primitives), the precision a kernel is declared at and the
// precision its compiled code is found to compute in. Names ("f32", "3xtf32", ...) are
// used only where precisions meet JSON, text and emitted CUDA.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace cusched {

enum class Precision {
  f64,
  f32,
  tf32,
  x3tf32,  // "3xtf32": f32 products as three TF32 products (split operands)
  bf16,
  f16,
  fp8,  // found in compiled code only; no schedule declares it
};

const std::string& precision_name(Precision p);
std::optional<Precision> precision_from_name(const std::string& name);
// precision_from_name, or a UserError "unknown-precision" naming the known ones.
Precision parse_precision(const std::string& name);
inline std::ostream& operator<<(std::ostream& os, Precision p) { return os << precision_name(p); }

}  // namespace cusched
