#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

PrimitiveDef cache_read_primitive() {
  PrimitiveDef p;
  p.name = "cache_read";
  p.summary =
      "Stages the part of a tensor that a stage reads inside one of its loops into shared memory (copied "
      "cooperatively by the block's threads, 16 bytes at a time where possible, followed by a barrier) or into "
      "registers. Padding the innermost dimension or an XOR swizzle avoids shared-memory bank conflicts. The "
      "staged copy can be software-pipelined with the pipeline primitive.";
  ArgSpec swz;
  swz.name = "swizzle";
  swz.type = ArgType::Bool;
  swz.required = false;
  swz.default_value = false;
  swz.doc = "XOR-swizzle 16-byte chunks of each row instead of padding.";
  ArgSpec share;
  share.name = "share";
  share.type = ArgType::Bool;
  share.required = false;
  share.default_value = false;
  share.doc =
      "Also serve the stages computed at the same loop (compute_at) that read the source: the copy is made before "
      "them and they read it instead of the source, so a row that several reductions and the output read comes "
      "from memory once. Each of their reads must lie inside the copied region.";
  p.args = {stage_arg(true), name_arg("source", "The tensor or stage to stage."),
            enum_arg("scope", {"shared", "register"}, "Where the copy lives."),
            name_arg("at", "The stage's loop inside which the copy is made (once per iteration)."),
            int_arg("pad", "Elements added to each row of a shared copy.", false, 0), swz, share,
            name_arg("name", "Name of the copy (default source + \"_\" + scope).", false)};
  p.before = "for ko:\n  for ki: acc += A[i, ko*32+ki] * B[ko*32+ki, j]";
  p.after = "for ko:\n  A_shared[0:BM, 0:32] = A[i0:i0+BM, ko*32 : ko*32+32]; barrier\n  for ki: acc += A_shared[ii, ki] * B[ko*32+ki, j]";
  p.example = R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 4})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"], source = step["source"], at = step["at"];
    StageSchedule& s = st.stage(stage);
    const FuncDef* f = st.stage_def(stage);
    if (!loads_from(f->body, source))
      fail("cache-read-not-read", "Stage '" + stage + "' does not read '" + source + "'.", "Name a tensor or stage that it reads.");
    require_loop(s, at);
    if (step["pad"].get<int64_t>() < 0) fail("bad-padding", "Padding must not be negative.", "Use 0 or a positive element count.");
    if (step["pad"].get<int64_t>() > 0 && step["swizzle"].get<bool>())
      fail("pad-and-swizzle", "cache_read cannot both pad and swizzle.", "Choose padding or a swizzle.");
    if (step["name"].is_null()) step["name"] = source + "_" + step["scope"].get<std::string>();
    for (const auto& c : s.cache_reads)
      if (c.source == source)
        fail("cache-read-twice", "Stage '" + stage + "' already stages '" + source + "'.", "Stage each source once per stage.");
    std::string name = step["name"];
    require_identifier(name, "staged copy");
    bool taken = st.stage_def(name) || st.ctx.pipeline.find_input(name);
    for (const auto& c : s.cache_reads) taken = taken || c.name == name;
    if (taken) fail("duplicate-name", "The name '" + name + "' is already taken.", "Choose another name.");
    CacheRead c;
    c.source = source;
    c.name = step["name"];
    c.scope = step["scope"];
    c.at_loop = at;
    c.pad = static_cast<int>(step["pad"].get<int64_t>());
    c.swizzle = step["swizzle"];
    c.share = step["share"];
    s.cache_reads.push_back(c);
  };
  return p;
}

}  // namespace cusched
