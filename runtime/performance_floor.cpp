#include "runtime/performance_floor.h"

#include <algorithm>

#include "dsl/error.h"

namespace cusched::runtime {

double flop_rate(Precision precision) {
  switch (precision) {
    case Precision::f32:
      return 51e12;
    case Precision::tf32:
      return 364e12;
    case Precision::x3tf32:
      return 364e12 / 3;  // three TF32 products per f32 product
    case Precision::bf16:
    case Precision::f16:
      return 730e12;
    case Precision::fp8:
      return 1460e12;
    case Precision::f64:
      return 67e12;
  }
  return 51e12;
}

namespace {

// The floor's FLOPs at the peak rate of its precision, in seconds.
double compute_seconds(const Floor& floor) { return floor.flops > 0 ? floor.flops / flop_rate(floor.precision) : 0; }

}  // namespace

double floor_ms(const Floor& floor, const MemoryBandwidth& bw) {
  double memory_s = 0;
  if (bw.copy > 0 && bw.read > bw.copy) {
    const double written = std::clamp(floor.written_bytes, 0.0, floor.bytes);
    memory_s = (floor.bytes - written) / bw.read + written * (2.0 / bw.copy - 1.0 / bw.read);
  } else if (bw.copy > 0) {
    memory_s = floor.bytes / bw.copy;
  }
  return std::max(memory_s, compute_seconds(floor)) * 1e3;
}

double least_possible_ms(const Floor& floor, const MemoryBandwidth& bw) {
  if (bw.peak <= 0) return floor_ms(floor, bw);
  return std::max(floor.bytes / bw.peak, compute_seconds(floor)) * 1e3;
}

TimeSummary summarize_times(std::vector<double> times_ms) {
  TimeSummary s;
  if (times_ms.empty()) return s;
  std::sort(times_ms.begin(), times_ms.end());
  size_t n = times_ms.size();
  s.median_ms = n % 2 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  s.min_ms = times_ms.front();
  s.max_ms = times_ms.back();
  return s;
}

}  // namespace cusched::runtime
