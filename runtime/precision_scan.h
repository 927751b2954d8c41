#pragma once
// The precision a compiled kernel computes in, read from its PTX: conversions
// that round to a narrower floating-point type (cvt to bf16, f16, tf32, fp8),
// arithmetic and matrix instructions on such types (mma, wgmma, fma.rn.bf16, ...),
// and integer masks that clear the low mantissa bits of a float's bit pattern
// (rounding by hand). Compared with the declared precision, it tells whether a
// kernel uses lower precision than it says.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dsl/dtype.h"
#include "dsl/precision.h"

namespace cusched::runtime {

// One reduced-precision instruction of a PTX text.
struct ReducedPrecisionUse {
  Precision precision;      // tf32, bf16, f16 or fp8
  std::string instruction;  // the PTX line, trimmed
  int line = 0;             // 1-based line in the PTX text
};

// Every reduced-precision instruction in `ptx`, in order.
std::vector<ReducedPrecisionUse> reduced_precision_uses(const std::string& ptx);

// The precisions a kernel declared at `declared` (f32, tf32, 3xtf32, bf16, f16,
// f64) may use, given the dtypes of the buffers it reads and writes (an f16
// buffer makes f16 conversions part of the job).
std::set<Precision> admitted_precisions(Precision declared, const std::set<DType>& buffer_dtypes);

// The first use in `ptx` of a precision that `admitted` does not contain.
std::optional<ReducedPrecisionUse> undeclared_precision(const std::string& ptx, const std::set<Precision>& admitted);

// The narrowest precision `ptx` computes in: "f32" when it has no reduced-precision
// instruction, else the narrowest of those found ("fp8" < "f16" = "bf16" < "tf32";
// ties are named in the order bf16, f16).
Precision compiled_precision(const std::string& ptx);

}  // namespace cusched::runtime
