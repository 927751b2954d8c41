#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef pipeline_primitive() {
  PrimitiveDef p;
  p.name = "pipeline";
  p.summary =
      "Software-pipelines the shared-memory copies that cache_read makes at a serial reduction loop: with depth D, "
      "D buffers rotate and the copies for iteration k+D-1 are issued asynchronously while iteration k computes, so "
      "memory latency hides behind math. Engines: cp.async (every thread copies 4 or 16 bytes at a time), bulk (the "
      "Hopper bulk copy engine: one thread issues a copy per row) and tensor (the Hopper tensor memory accelerator: "
      "one thread issues one copy of the whole region per source, zeros where it leaves the source, with the "
      "128-byte swizzle that wgmma reads when the copy is swizzled).";
  p.args = {stage_arg(false), name_arg("loop", "The serial loop at which cache_read copies are made."),
            int_arg("depth", "Number of buffers in flight (2 to 8).", false, 2),
            enum_arg("engine", copy_engine_names(), "The asynchronous copy mechanism.", false, "cp.async")};
  p.before = "for ko: copy A,B tiles (ko); barrier; compute (ko); barrier";
  p.after = "issue copies 0..D-2\nfor ko: issue copy ko+D-1; wait copy ko; barrier; compute (ko)";
  p.example = R"({"op": "pipeline", "stage": "C", "loop": "ko", "depth": 3})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step_stage(st, step, "loop");
    StageSchedule& s = st.stage(stage);
    LoopInfo& l = require_loop(s, step["loop"]);
    int64_t depth = step["depth"];
    if (depth < 2 || depth > 8)
      fail("bad-pipeline-depth", "Pipeline depth " + std::to_string(depth) + " is outside 2..8.",
           "Use a depth from 2 to 8; 3 is typical.");
    if (l.axis != GpuAxis::None || l.kind != LoopKind::Serial)
      fail("pipeline-loop-not-serial", "Loop '" + l.name + "' is not a serial loop.", "Pipeline a serial loop.");
    bool staged = false;
    for (const auto& c : s.cache_reads) staged |= c.at_loop == l.name && c.scope == MemScope::Shared;
    if (!staged)
      fail("pipeline-no-staging",
           "No cache_read into shared memory is made at loop '" + l.name + "', so there is nothing to pipeline.",
           "cache_read the stage's inputs into shared memory at this loop first.");
    // A depth above the trip count is legal: the buffers past the last iteration are never filled.
    s.pipeline_loop = l.name;
    s.pipeline_depth = static_cast<int>(depth);
    s.pipeline_engine = *copy_engine_from_name(step["engine"]);
    step["stage"] = stage;
  };
  return p;
}

}  // namespace cusched
