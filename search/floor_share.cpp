#include "search/floor_share.h"

#include <algorithm>

#include "dsl/error.h"
#include "runtime/performance_floor.h"

namespace cusched::search {

nlohmann::json FloorShare::to_json() const {
  return {{"bytes_floor_ms", bytes_floor_ms},
          {"flops_floor_ms", flops_floor_ms},
          {"by_bytes_pct", by_bytes_pct},
          {"by_flops_pct", by_flops_pct},
          {"pct", pct},
          {"measured_bandwidth", measured_bandwidth}};
}

FloorShare floor_share(const Problem& problem, const std::string& size, const std::string& precision, double ms,
                       double copy_bandwidth) {
  FloorShare f;
  const SizeBindings& sizes = problem.size(size);
  f.measured_bandwidth = copy_bandwidth > 0;
  double bw = copy_bandwidth > 0 ? copy_bandwidth : kNominalCopyBandwidth;
  f.bytes_floor_ms = problem.min_bytes(sizes) / bw * 1e3;
  const double rate = runtime::flop_rate(precision_from_name(precision).value_or(Precision::f32));
  double flops = problem.flops ? problem.flops(sizes) : 0;
  f.flops_floor_ms = flops / rate * 1e3;
  if (ms > 0) {
    f.by_bytes_pct = f.bytes_floor_ms / ms * 100;
    f.by_flops_pct = f.flops_floor_ms / ms * 100;
    f.pct = std::max(f.by_bytes_pct, f.by_flops_pct);
  }
  return f;
}

}  // namespace cusched::search
