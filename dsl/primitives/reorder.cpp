#include <algorithm>
#include <set>

#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef reorder_primitive() {
  PrimitiveDef p;
  p.name = "reorder";
  p.summary =
      "Reorders the listed loops, outermost first, among the positions they occupy; other loops stay where they are. "
      "Moving a reduction loop outside pure loops makes the stage accumulate a register tile over those pure loops.";
  ArgSpec loops;
  loops.name = "loops";
  loops.type = ArgType::NameList;
  loops.doc = "The loops in their new order, outermost first.";
  p.args = {stage_arg(false), loops};
  p.before = "for i in 0..M:\n  for j in 0..N:\n    ...";
  p.after = "for j in 0..N:\n  for i in 0..M:\n    ...";
  p.example = R"({"op": "reorder", "stage": "C", "loops": ["j", "i"]})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    const auto& names = step["loops"];
    if (names.empty())
      fail("missing-argument", "reorder needs at least one loop.", "List the loops in their new order.");
    std::string hint = step["stage"].is_string() ? step["stage"].get<std::string>() : "";
    std::string stage = st.stage_of_loop(names[0], hint);
    StageSchedule& s = st.stage(stage);
    std::set<std::string> seen;
    std::vector<int> pos;
    for (const auto& n : names) {
      std::string name = n;
      if (!seen.insert(name).second)
        fail("loop-used-twice", "reorder lists loop '" + name + "' twice.", "List each loop once.");
      require_loop(s, name);
      pos.push_back(s.position(name));
    }
    std::sort(pos.begin(), pos.end());
    for (size_t i = 0; i < names.size(); ++i) s.order[pos[i]] = names[i];
    if (!step.contains("stage") || step["stage"].is_null()) step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
