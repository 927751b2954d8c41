#include <sstream>

#include "search/stall_diagnosis.h"

namespace cusched::search {
namespace {

using nlohmann::json;

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

}  // namespace

std::string diagnosis_text(const json& d) {
  std::ostringstream s;
  s << "stalled: " << d.value("reason", "") << "\n";
  const std::string unit = d.value("time_unit", "ms");
  if (d.contains("best") && d["best"].is_object()) {
    const json& b = d["best"];
    s << "  best: candidate " << b.value("candidate", 0) << " at " << fixed(b.value("ms", 0.0), 4) << " " << unit;
    if (b.contains("floor") && b["floor"].is_object()) {
      const json& f = b["floor"];
      s << "; " << fixed(f.value("pct", 0.0), 1) << "% of the floor (" << fixed(f.value("by_bytes_pct", 0.0), 1)
        << "% by bytes, " << fixed(f.value("by_flops_pct", 0.0), 1) << "% by FLOPs, at the "
        << f.value("size", std::string("bench")) << " size"
        << (f.value("measured_bandwidth", false) ? "" : ", nominal copy bandwidth 4.27 TB/s") << ")";
    }
    s << "\n";
    const json& r = b["resources"];
    if (r.value("available", false)) {
      for (const auto& k : r["kernels"]) {
        s << "  resources of " << k.value("kernel", "") << ": " << k.value("registers", 0) << " registers, spills "
          << k.value("spill_store_bytes", 0) << " B stored / " << k.value("spill_load_bytes", 0) << " B loaded, "
          << k.value("static_smem_bytes", 0) << " B static shared memory";
        if (k.contains("occupancy"))
          s << ", " << k.value("dynamic_smem_bytes", 0) << " B dynamic, " << k.value("threads_per_block", 0)
            << " threads per block, theoretical occupancy " << fixed(k["occupancy"].get<double>() * 100, 0) << "%";
        s << "\n";
      }
    } else {
      s << "  resources: unavailable. " << r.value("why", "") << "\n";
    }
  } else {
    s << "  best: none verified yet\n";
  }
  if (!d["rejections"].empty()) {
    s << "  rejections in the last rounds:\n";
    for (const auto& r : d["rejections"])
      s << "    round " << r.value("round", 0) << ", candidate " << r.value("candidate", 0) << ": "
        << r.value("verdict", "") << ": " << r.value("reason", "") << "\n";
  }
  if (!d["ideas"].empty()) {
    s << "  ideas tried (gain of each idea's best over the best before its round):\n";
    for (const auto& i : d["ideas"]) {
      s << "    round " << i.value("round", 0) << " [" << i.value("source", "") << "] " << i.value("idea", "") << ": "
        << i.value("verified", 0) << "/" << i.value("candidates", 0) << " verified";
      if (i["best_ms"].is_number()) s << ", best " << fixed(i["best_ms"].get<double>(), 4) << " ms";
      if (i["gain_pct"].is_number()) s << ", gain " << fixed(i["gain_pct"].get<double>(), 1) << "%";
      s << "\n";
    }
  }
  s << "  to act on it: `cusched steer DB --add s.json --idea TEXT`, --hint, --ban-move, --restart-from, then "
       "`cusched search --resume --db DB`";
  return s.str();
}

}  // namespace cusched::search
