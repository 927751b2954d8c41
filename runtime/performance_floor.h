#pragma once
// The least time a problem can take on the GPU, and the statistics of a set of
// timed runs.
#include <string>
#include <vector>

#include "runtime/evaluation.h"

namespace cusched::runtime {

// Peak FLOP/s of an H200 by operand precision: f32 51e12, tf32 364e12,
// bf16 and f16 730e12, f64 67e12. Throws UserError ("unknown-precision") otherwise.
double flop_rate(const std::string& precision);

// max(bytes / copy_bytes_per_s, flops / flop_rate(precision)) in milliseconds.
double floor_ms(const Floor& floor, double copy_bytes_per_s);

// A median under this fraction of the floor is rejected as under_floor.
constexpr double kUnderFloorFraction = 0.97;

struct TimeSummary {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
TimeSummary summarize_times(std::vector<double> times_ms);

}  // namespace cusched::runtime
