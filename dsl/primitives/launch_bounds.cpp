#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef launch_bounds_primitive() {
  PrimitiveDef p;
  p.name = "launch_bounds";
  p.summary =
      "Declares __launch_bounds__(max_threads, min_blocks) on the stage's kernel, letting the compiler budget "
      "registers so that min_blocks blocks fit on one multiprocessor. The block size must not exceed max_threads.";
  p.args = {stage_arg(true), int_arg("max_threads", "Threads per block the kernel is compiled for (32..1024)."),
            int_arg("min_blocks", "Blocks that should fit per multiprocessor.", false, 1)};
  p.before = "__global__ void k(...)";
  p.after = "__global__ void __launch_bounds__(256, 2) k(...)";
  p.example = R"({"op": "launch_bounds", "stage": "C", "max_threads": 256, "min_blocks": 2})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    StageSchedule& s = st.stage(step["stage"]);
    int64_t t = step["max_threads"], b = step["min_blocks"];
    if (t < 32 || t > 1024)
      fail("bad-launch-bounds", "max_threads " + std::to_string(t) + " is outside 32..1024.",
           "Use the kernel's block size.");
    if (b < 1 || b > 32)
      fail("bad-launch-bounds", "min_blocks " + std::to_string(b) + " is outside 1..32.", "Use 1 to 32.");
    s.launch_max_threads = static_cast<int>(t);
    s.launch_min_blocks = static_cast<int>(b);
  };
  return p;
}

}  // namespace cusched
