#pragma once
// The comparison of one candidate output with its float64 reference: a pure
// function on host arrays, so its rules are tested without a GPU.
#include <cstdint>
#include <string>

#include "dsl/dtype.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {

// The bit pattern written over every output element before a launch: NaN for
// f32, f64 and f16, a huge value for bf16, 0x7FBADBAD for integers and 0xBD for bool.
void fill_poison(DType t, void* data, int64_t elements);
bool is_poison(DType t, const void* element);
// The pattern as the 8-, 16- or 32-bit word that cuMemsetD8/16/32 repeat.
uint32_t poison_word(DType t);

struct OutputCheck {
  Verdict verdict = Verdict::ok;  // ok, unwritten_output, nan_or_inf, wrong_output or reference_degenerate
  std::string message;            // one sentence when not ok
  double max_abs_err = 0;         // max |c - r|
  double max_rel_err = 0;         // max |c - r| / |r| over elements with |r| > atol
  double rel_l2_err = 0;          // ||c - r||_2 / ||r||_2
  int64_t bad_elements = 0;       // elements that fail their check
  int64_t first_bad_index = -1;
};

// Whether a reference output cannot tell right from wrong: it holds NaN or Inf,
// or it is near constant (max - min <= 1e-12 * (1 + |mean|)); a single-element
// output is degenerate only when it is exactly zero.
OutputCheck check_reference(const std::string& buffer, const double* reference, int64_t elements);

// Checks `candidate` (raw elements of `dtype`) against `reference`, in this
// order: poison left in place (unwritten_output), NaN or Inf (nan_or_inf),
// then |c - r| <= atol + rtol * |r| for every element and the relative L2 error
// <= rel_l2 (wrong_output). `poisoned` says whether the output was poisoned
// before the launch (not so for outputs zeroed before launch).
OutputCheck check_output(const std::string& buffer, DType dtype, const void* candidate, const double* reference,
                         int64_t elements, const Tolerance& tol, bool poisoned = true);

}  // namespace cusched::runtime
