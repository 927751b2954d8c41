#include "dsl/scan_loops.h"

#include <algorithm>

namespace cusched {

ScanLoops scan_loops(const FuncDef& f, const StageSchedule& s) {
  ScanLoops out;
  if (!f.is_scan()) return out;
  std::vector<std::string>& l = out.loops;
  l.push_back(f.body->name);
  auto find = [&](const std::string& n) { return std::find(l.begin(), l.end(), n); };
  for (const auto& r : s.relations) {
    switch (r.kind) {
      case LoopRelation::Split:
        if (auto it = find(r.a); it != l.end()) {
          *it = r.c;
          l.insert(it, r.b);
        }
        break;
      case LoopRelation::Fuse:
        if (find(r.a) != l.end() || find(r.b) != l.end()) {
          if (out.fused.empty()) out.fused = r.c;
          l.erase(std::remove_if(l.begin(), l.end(), [&](const std::string& n) { return n == r.a || n == r.b; }),
                  l.end());
        }
        break;
      case LoopRelation::Reverse:
        if (auto it = find(r.a); it != l.end()) {
          if (out.reversed.empty()) out.reversed = r.b;
          *it = r.b;
        }
        break;
    }
  }
  return out;
}

}  // namespace cusched
