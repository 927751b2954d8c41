#pragma once
// The comparison of one candidate output with its float64 reference. The
// statistics of a comparison are gathered on the host (below) or on the device
// (runtime/device_check.h); either way one pair of judge functions turns them
// into the verdict and its message, so both paths word their verdicts alike.
#include <cstdint>
#include <string>

#include "dsl/dtype.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {

// The bit pattern written over every output element before a launch: 0x7FBADBAD
// words for 4- and 8-byte types (NaN in f32, a huge finite value in f64), 0x7DBD
// for f16 (NaN) and bf16 (a huge value), and 0xBD for bool.
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

// What judging a reference output needs to know about it.
struct ReferenceStats {
  int64_t elements = 0;
  double min = 0, max = 0, sum = 0;  // over the elements before the first non-finite one
  int64_t nonfinite_first = -1;      // index of the first NaN or Inf, -1 when none
  double nonfinite_value = 0;        // the value there
};

// What judging a candidate output needs to know about it. Elements that hold
// poison or a non-finite value are left out of the error statistics.
struct OutputStats {
  int64_t elements = 0;
  bool poison_checked = true;                       // false for outputs zeroed before launch
  int64_t poisoned = 0, poisoned_first = -1;        // elements still holding the poison pattern
  int64_t nonfinite = 0, nonfinite_first = -1;      // NaN or Inf written by the candidate
  int64_t outside = 0, outside_first = -1;          // elements with !(|c - r| <= atol + rtol |r|)
  int64_t worst = -1;                               // the first outside element of largest |c - r|
  double worst_candidate = 0, worst_reference = 0;  // the two values there
  double max_abs_err = 0, max_rel_err = 0;
  double diff_sq = 0, ref_sq = 0;  // sums of (c - r)^2 and r^2
};

// The verdict on a reference output: degenerate when it holds NaN or Inf, or it
// is near constant (max - min <= 1e-12 * (1 + |mean|)); a single-element output
// is degenerate only when it is exactly zero. With `constant_allowed` (a problem whose
// output is constant by construction) only NaN or Inf is degenerate.
OutputCheck judge_reference(const std::string& buffer, const ReferenceStats& stats, bool constant_allowed = false);

// The verdict on a candidate output, in this order: poison left in place
// (unwritten_output), NaN or Inf (nan_or_inf), then elements outside
// atol + rtol |r| and the relative L2 error above rel_l2 (wrong_output).
OutputCheck judge_output(const std::string& buffer, const OutputStats& stats, const Tolerance& tol);

// Host statistics, gathered in chunks on several threads.
ReferenceStats reference_stats(const double* reference, int64_t elements);
OutputStats output_stats(DType dtype, const void* candidate, const double* reference, int64_t elements,
                         const Tolerance& tol, bool poisoned = true);

// judge_reference(reference_stats(...)).
OutputCheck check_reference(const std::string& buffer, const double* reference, int64_t elements,
                            bool constant_allowed = false);

// Checks `candidate` (raw elements of `dtype`) against `reference`:
// judge_output(output_stats(...)). `poisoned` says whether the output was
// poisoned before the launch (not so for outputs zeroed before launch).
OutputCheck check_output(const std::string& buffer, DType dtype, const void* candidate, const double* reference,
                         int64_t elements, const Tolerance& tol, bool poisoned = true);

}  // namespace cusched::runtime
