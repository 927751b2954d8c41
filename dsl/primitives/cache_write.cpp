#include "dsl/error.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef cache_write_primitive() {
  PrimitiveDef p;
  p.name = "cache_write";
  p.summary =
      "Chooses where a reduction accumulates before its result is written out: in registers (each thread's tile of "
      "accumulators, the default) or in shared memory (the block's tile, written back cooperatively, which allows "
      "coalesced 16-byte stores of a tile that threads computed in another layout).";
  p.args = {stage_arg(true), enum_arg("scope", {"register", "shared"}, "Where the accumulators live.")};
  p.before = "for k: C[i,j] += A[i,k]*B[k,j]   // read-modify-write of C in global memory";
  p.after = "acc = 0; for k: acc += A[i,k]*B[k,j]; C[i,j] = acc   // acc in registers";
  p.example = R"({"op": "cache_write", "stage": "C", "scope": "register"})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"];
    StageSchedule& s = st.stage(stage);
    if (!st.stage_def(stage)->is_reduction())
      fail("cache-write-pointwise", "Stage '" + stage + "' is pointwise; it has no accumulators to place.",
           "Use cache_write on a reduction stage.");
    s.cache_write_scope = parse_mem_scope(step["scope"]);
  };
  return p;
}

}  // namespace cusched
