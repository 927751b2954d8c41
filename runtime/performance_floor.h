#pragma once
// The least time a problem can take on the GPU, and the statistics of a set of
// timed runs.
#include <string>
#include <vector>

#include "runtime/evaluation.h"

namespace cusched::runtime {

// Peak FLOP/s of an H200 by operand precision: f32 51e12, tf32 364e12,
// bf16 and f16 730e12, fp8 1460e12, f64 67e12.
double flop_rate(Precision precision);

// Measured memory rates, in bytes per second.
struct MemoryBandwidth {
  double copy = 0;  // bytes read plus written by a large device-to-device copy
  double read = 0;  // bytes read by a large read-only stream (0: not measured)
  double peak = 0;  // the memory interface's rate from its clock and bus width (0: unknown)
};

// max(memory time, flops / flop_rate(precision)) in milliseconds. The memory time is
// bytes / copy when reads are not measured faster than the copy; otherwise the read
// bytes go at the read rate and each written byte costs what a copy's write adds to
// its read (2 / copy - 1 / read seconds per byte), so a copy-shaped problem still
// gets bytes / copy, and a read-only one (a reduction) bytes / read.
double floor_ms(const Floor& floor, const MemoryBandwidth& bw);

// The least time the work can take at the memory interface's peak rate and the peak
// FLOP rate: max(bytes / peak, flops / flop_rate(precision)) in milliseconds, or
// floor_ms when the peak is unknown. A kernel's own reads may outrun the streams that
// floor_ms measures, never this.
double least_possible_ms(const Floor& floor, const MemoryBandwidth& bw);

// A median under this fraction of least_possible_ms is rejected as under_floor.
constexpr double kUnderFloorFraction = 0.97;

struct TimeSummary {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
TimeSummary summarize_times(std::vector<double> times_ms);

}  // namespace cusched::runtime
