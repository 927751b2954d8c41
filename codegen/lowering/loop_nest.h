#pragma once
// The loop nest that a stage's schedule derives (split, fuse, reorder, reverse, bind,
// unroll, vectorize): its loops with their extents and IR variables, the value of each
// original variable over them, and the guards of non-dividing splits.
#include <map>
#include <string>
#include <vector>

#include "codegen/ir.h"

namespace cusched::lowering {

struct DerivedLoop {
  LoopInfo info;
  std::string var;  // IR variable name
};

struct DerivedNest {
  std::vector<DerivedLoop> loops;
  std::map<std::string, Expr> value;  // original variable -> expression over IR variables
  std::vector<Expr> guards;           // conditions for non-dividing splits
};

// Replays a stage's splits and fuses on the given extents of its variables.
DerivedNest derive_nest(const StageSchedule& s, std::map<std::string, int64_t> extent);

// The conjunction of the conditions (undefined when there are none).
Expr conjunction(const std::vector<Expr>& conds);
// `s` under an If on the conjunction of the conditions (none: `s` itself).
Stmt guarded(const std::vector<Expr>& conds, Stmt s);

}  // namespace cusched::lowering
