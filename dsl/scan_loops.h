#pragma once
// The loops of a scan stage that come from its scanned variable: followed through the
// stage's splits (outer before inner, the order in which they step through the
// variable), and the relations that break that order (a fuse with another loop, a
// reverse).
#include <string>
#include <vector>

#include "dsl/func.h"
#include "dsl/schedule_state.h"

namespace cusched {

struct ScanLoops {
  std::vector<std::string> loops;  // the current loops derived from the scanned variable, outer first
  std::string fused;               // a fuse that took in one of them: the fused loop's name ("" for none)
  std::string reversed;            // a reverse of one of them: the reversed loop's name ("" for none)
};

// Empty unless `f` is a scan.
ScanLoops scan_loops(const FuncDef& f, const StageSchedule& s);

}  // namespace cusched
