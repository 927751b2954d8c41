#include "runtime/output_check.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "runtime/element_codec.h"

namespace cusched::runtime {

uint32_t poison_word(DType t) {
  switch (dtype_bytes(t)) {
    case 1: return 0xBDu;
    case 2: return 0x7DBDu;
    default: return 0x7FBADBADu;  // 8-byte types repeat the 32-bit word
  }
}

void fill_poison(DType t, void* data, int64_t elements) {
  auto* p = static_cast<uint8_t*>(data);
  int64_t bytes = elements * dtype_bytes(t);
  uint32_t word = poison_word(t);
  int width = dtype_bytes(t) == 1 ? 1 : dtype_bytes(t) == 2 ? 2 : 4;
  for (int64_t i = 0; i < bytes; i += width) std::memcpy(p + i, &word, static_cast<size_t>(width));
}

bool is_poison(DType t, const void* element) {
  uint8_t expected[8];
  fill_poison(t, expected, 1);
  return std::memcmp(expected, element, static_cast<size_t>(dtype_bytes(t))) == 0;
}

namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(7);
  s << v;
  return s.str();
}

}  // namespace

OutputCheck check_reference(const std::string& buffer, const double* reference, int64_t elements) {
  OutputCheck out;
  if (elements <= 0) return out;
  double lo = reference[0], hi = reference[0], sum = 0;
  for (int64_t i = 0; i < elements; ++i) {
    double r = reference[i];
    if (!std::isfinite(r)) {
      out.verdict = Verdict::reference_degenerate;
      out.first_bad_index = i;
      out.message = "The reference output '" + buffer + "' holds " + number(r) + " at index " + std::to_string(i) +
                    ", so it cannot judge the candidate.";
      return out;
    }
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    sum += r;
  }
  double mean = sum / static_cast<double>(elements);
  bool degenerate = elements == 1 ? reference[0] == 0.0 : hi - lo <= 1e-12 * (1 + std::fabs(mean));
  if (degenerate) {
    out.verdict = Verdict::reference_degenerate;
    out.message = "The reference output '" + buffer + "' is constant (" + number(mean) +
                  ") on these inputs, so a kernel that ignores its inputs would pass; change the input distribution.";
  }
  return out;
}

OutputCheck check_output(const std::string& buffer, DType dtype, const void* candidate, const double* reference,
                         int64_t elements, const Tolerance& tol, bool poisoned) {
  OutputCheck out;
  const auto* c = static_cast<const uint8_t*>(candidate);
  const int width = dtype_bytes(dtype);
  const std::string total = std::to_string(elements);

  if (poisoned) {
    for (int64_t i = 0; i < elements; ++i)
      if (is_poison(dtype, c + i * width)) {
        if (out.first_bad_index < 0) out.first_bad_index = i;
        ++out.bad_elements;
      }
    if (out.bad_elements) {
      out.verdict = Verdict::unwritten_output;
      out.message = "The candidate left " + std::to_string(out.bad_elements) + " of " + total + " elements of '" +
                    buffer + "' unwritten (first at index " + std::to_string(out.first_bad_index) + ").";
      return out;
    }
  }

  double diff_sq = 0, ref_sq = 0;
  int64_t nonfinite = 0, nonfinite_first = -1, worst = -1;
  double worst_c = 0;
  for (int64_t i = 0; i < elements; ++i) {
    double v = load_element(dtype, c + i * width);
    double r = reference[i];
    if (!std::isfinite(v)) {
      if (nonfinite_first < 0) nonfinite_first = i;
      ++nonfinite;
      continue;
    }
    double d = std::fabs(v - r);
    if (d > out.max_abs_err) out.max_abs_err = d;
    if (std::fabs(r) > tol.atol) out.max_rel_err = std::max(out.max_rel_err, d / std::fabs(r));
    diff_sq += d * d;
    ref_sq += r * r;
    if (!(d <= tol.atol + tol.rtol * std::fabs(r))) {
      if (out.first_bad_index < 0) out.first_bad_index = i;
      ++out.bad_elements;
      if (worst < 0 || d > std::fabs(worst_c - reference[worst])) {
        worst = i;
        worst_c = v;
      }
    }
  }
  out.rel_l2_err = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : (diff_sq > 0 ? INFINITY : 0.0);

  if (nonfinite) {
    out.verdict = Verdict::nan_or_inf;
    out.first_bad_index = nonfinite_first;
    out.bad_elements = nonfinite;
    out.message = "The candidate wrote NaN or Inf into " + std::to_string(nonfinite) + " of " + total +
                  " elements of '" + buffer + "' (first at index " + std::to_string(nonfinite_first) + ").";
    return out;
  }
  if (out.bad_elements) {
    out.verdict = Verdict::wrong_output;
    out.message = "Output '" + buffer + "' is outside atol " + number(tol.atol) + " + rtol " + number(tol.rtol) +
                  " x |reference| at " + std::to_string(out.bad_elements) + " of " + total +
                  " elements (worst at index " + std::to_string(worst) + ": " + number(worst_c) + " where the reference has " +
                  number(reference[worst]) + ").";
    return out;
  }
  if (!(out.rel_l2_err <= tol.rel_l2)) {
    out.verdict = Verdict::wrong_output;
    out.message = "Output '" + buffer + "' has a relative L2 error of " + number(out.rel_l2_err) + ", above the limit " +
                  number(tol.rel_l2) + ".";
  }
  return out;
}

}  // namespace cusched::runtime
