#pragma once
// A candidate's time against the problem's floor, split by its two parts: the bytes
// that must move over the copy bandwidth, and the useful FLOPs over the unit's rate.
#include <string>

#include "problems/problem.h"

namespace cusched::search {

// The H200's copy bandwidth (bytes read plus written per second) used when no measured
// rate is at hand (interpreter runs).
constexpr double kNominalCopyBandwidth = 4.27e12;

struct FloorShare {
  double bytes_floor_ms = 0, flops_floor_ms = 0;
  double by_bytes_pct = 0, by_flops_pct = 0;  // each floor over `ms`, in percent
  double pct = 0;                             // the larger floor over `ms`: the share of the floor
  bool measured_bandwidth = false;            // false: kNominalCopyBandwidth
  nlohmann::json to_json() const;
};

// `ms` (a time at the size `size`) against the floor at that size, for operands of
// `precision`. `copy_bandwidth` in bytes per second; 0 uses kNominalCopyBandwidth.
FloorShare floor_share(const Problem& problem, const std::string& size, const std::string& precision, double ms,
                       double copy_bandwidth = 0);

}  // namespace cusched::search
