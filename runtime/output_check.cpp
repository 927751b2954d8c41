#include "runtime/output_check.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "runtime/element_codec.h"
#include "runtime/host_parallel.h"

namespace cusched::runtime {

uint32_t poison_word(DType t) {
  switch (dtype_bytes(t)) {
    case 1:
      return 0xBDu;
    case 2:
      return 0x7DBDu;
    default:
      return 0x7FBADBADu;  // 8-byte types repeat the 32-bit word
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

OutputCheck judge_reference(const std::string& buffer, const ReferenceStats& s, bool constant_allowed) {
  OutputCheck out;
  if (s.elements <= 0) return out;
  if (s.nonfinite_first >= 0) {
    out.verdict = Verdict::reference_degenerate;
    out.first_bad_index = s.nonfinite_first;
    out.message = "The reference output '" + buffer + "' holds " + number(s.nonfinite_value) + " at index " +
                  std::to_string(s.nonfinite_first) + ", so it cannot judge the candidate.";
    return out;
  }
  if (constant_allowed) return out;
  double mean = s.sum / static_cast<double>(s.elements);
  bool degenerate = s.elements == 1 ? s.min == 0.0 : s.max - s.min <= 1e-12 * (1 + std::fabs(mean));
  if (degenerate) {
    out.verdict = Verdict::reference_degenerate;
    out.message = "The reference output '" + buffer + "' is constant (" + number(mean) +
                  ") on these inputs, so a kernel that ignores its inputs would pass; change the input distribution.";
  }
  return out;
}

OutputCheck judge_output(const std::string& buffer, const OutputStats& s, const Tolerance& tol) {
  OutputCheck out;
  const std::string total = std::to_string(s.elements);
  if (s.poison_checked && s.poisoned > 0) {
    out.verdict = Verdict::unwritten_output;
    out.bad_elements = s.poisoned;
    out.first_bad_index = s.poisoned_first;
    out.message = "The candidate left " + std::to_string(s.poisoned) + " of " + total + " elements of '" + buffer +
                  "' unwritten (first at index " + std::to_string(s.poisoned_first) + ").";
    return out;
  }
  out.max_abs_err = s.max_abs_err;
  out.max_rel_err = s.max_rel_err;
  out.rel_l2_err = s.ref_sq > 0 ? std::sqrt(s.diff_sq / s.ref_sq) : (s.diff_sq > 0 ? INFINITY : 0.0);
  if (s.nonfinite > 0) {
    out.verdict = Verdict::nan_or_inf;
    out.first_bad_index = s.nonfinite_first;
    out.bad_elements = s.nonfinite;
    out.message = "The candidate wrote NaN or Inf into " + std::to_string(s.nonfinite) + " of " + total +
                  " elements of '" + buffer + "' (first at index " + std::to_string(s.nonfinite_first) + ").";
    return out;
  }
  if (s.outside > 0) {
    out.verdict = Verdict::wrong_output;
    out.bad_elements = s.outside;
    out.first_bad_index = s.outside_first;
    out.message = "Output '" + buffer + "' is outside atol " + number(tol.atol) + " + rtol " + number(tol.rtol) +
                  " x |reference| at " + std::to_string(s.outside) + " of " + total + " elements (worst at index " +
                  std::to_string(s.worst) + ": " + number(s.worst_candidate) + " where the reference has " +
                  number(s.worst_reference) + ").";
    return out;
  }
  if (!(out.rel_l2_err <= tol.rel_l2)) {
    out.verdict = Verdict::wrong_output;
    out.message = "Output '" + buffer + "' has a relative L2 error of " + number(out.rel_l2_err) +
                  ", above the limit " + number(tol.rel_l2) + ".";
  }
  return out;
}

ReferenceStats reference_stats(const double* reference, int64_t elements) {
  ReferenceStats s;
  s.elements = elements;
  if (elements <= 0) return s;
  std::vector<ReferenceStats> parts(static_cast<size_t>(host_chunk_count(elements)));
  for_each_host_chunk(elements, [&](int64_t c, int64_t begin, int64_t end) {
    ReferenceStats& p = parts[static_cast<size_t>(c)];
    p.min = INFINITY;
    p.max = -INFINITY;
    for (int64_t i = begin; i < end; ++i) {
      double r = reference[i];
      if (!std::isfinite(r)) {
        p.nonfinite_first = i;
        p.nonfinite_value = r;
        break;
      }
      p.min = std::min(p.min, r);
      p.max = std::max(p.max, r);
      p.sum += r;
    }
  });
  s.min = INFINITY;
  s.max = -INFINITY;
  for (const auto& p : parts) {
    s.min = std::min(s.min, p.min);
    s.max = std::max(s.max, p.max);
    s.sum += p.sum;
    if (p.nonfinite_first >= 0) {
      s.nonfinite_first = p.nonfinite_first;
      s.nonfinite_value = p.nonfinite_value;
      break;
    }
  }
  return s;
}

namespace {

// The error statistics of one chunk of a candidate output.
struct ErrorPart {
  int64_t nonfinite = 0, nonfinite_first = -1;
  int64_t outside = 0, outside_first = -1, worst = -1;
  double worst_candidate = 0, worst_reference = 0, worst_diff = 0;
  double max_abs_err = 0, max_rel_err = 0, diff_sq = 0, ref_sq = 0;
};

}  // namespace

OutputStats output_stats(DType dtype, const void* candidate, const double* reference, int64_t elements,
                         const Tolerance& tol, bool poisoned) {
  OutputStats s;
  s.elements = elements;
  s.poison_checked = poisoned;
  if (elements <= 0) return s;
  const auto* c = static_cast<const uint8_t*>(candidate);
  const int width = dtype_bytes(dtype);
  const size_t chunks = static_cast<size_t>(host_chunk_count(elements));

  if (poisoned) {
    std::vector<std::pair<int64_t, int64_t>> parts(chunks, {0, -1});  // count, first
    for_each_host_chunk(elements, [&](int64_t ci, int64_t begin, int64_t end) {
      auto& [count, first] = parts[static_cast<size_t>(ci)];
      for (int64_t i = begin; i < end; ++i)
        if (is_poison(dtype, c + i * width)) {
          if (first < 0) first = i;
          ++count;
        }
    });
    for (const auto& [count, first] : parts) {
      if (s.poisoned_first < 0) s.poisoned_first = first;
      s.poisoned += count;
    }
    if (s.poisoned) return s;
  }

  std::vector<ErrorPart> parts(chunks);
  for_each_host_chunk(elements, [&](int64_t ci, int64_t begin, int64_t end) {
    ErrorPart& p = parts[static_cast<size_t>(ci)];
    for (int64_t i = begin; i < end; ++i) {
      double v = load_element(dtype, c + i * width);
      double r = reference[i];
      if (!std::isfinite(v)) {
        if (p.nonfinite_first < 0) p.nonfinite_first = i;
        ++p.nonfinite;
        continue;
      }
      double d = std::fabs(v - r);
      if (d > p.max_abs_err) p.max_abs_err = d;
      if (std::fabs(r) > tol.atol) p.max_rel_err = std::max(p.max_rel_err, d / std::fabs(r));
      p.diff_sq += d * d;
      p.ref_sq += r * r;
      if (!(d <= tol.atol + tol.rtol * std::fabs(r))) {
        if (p.outside_first < 0) p.outside_first = i;
        ++p.outside;
        if (p.worst < 0 || d > p.worst_diff) {
          p.worst = i;
          p.worst_diff = d;
          p.worst_candidate = v;
          p.worst_reference = r;
        }
      }
    }
  });
  double worst_diff = 0;
  for (const auto& p : parts) {
    if (s.nonfinite_first < 0) s.nonfinite_first = p.nonfinite_first;
    s.nonfinite += p.nonfinite;
    if (s.outside_first < 0) s.outside_first = p.outside_first;
    s.outside += p.outside;
    if (p.worst >= 0 && (s.worst < 0 || p.worst_diff > worst_diff)) {
      s.worst = p.worst;
      worst_diff = p.worst_diff;
      s.worst_candidate = p.worst_candidate;
      s.worst_reference = p.worst_reference;
    }
    if (p.max_abs_err > s.max_abs_err) s.max_abs_err = p.max_abs_err;
    s.max_rel_err = std::max(s.max_rel_err, p.max_rel_err);
    s.diff_sq += p.diff_sq;
    s.ref_sq += p.ref_sq;
  }
  return s;
}

OutputCheck check_reference(const std::string& buffer, const double* reference, int64_t elements,
                            bool constant_allowed) {
  return judge_reference(buffer, reference_stats(reference, elements), constant_allowed);
}

OutputCheck check_output(const std::string& buffer, DType dtype, const void* candidate, const double* reference,
                         int64_t elements, const Tolerance& tol, bool poisoned) {
  return judge_output(buffer, output_stats(dtype, candidate, reference, elements, tol, poisoned), tol);
}

}  // namespace cusched::runtime
