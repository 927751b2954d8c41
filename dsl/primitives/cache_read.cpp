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
  p.args = {
      stage_arg(true),
      name_arg("source", "The tensor or stage to stage."),
      enum_arg("scope", {"shared", "register"}, "Where the copy lives."),
      name_arg("at", "The stage's loop inside which the copy is made (once per iteration)."),
      int_arg("pad", "Elements added to each row of a shared copy.", false, 0),
      swz,
      share,
      int_arg("registers",
              "Of a shared copy, the number of each thread's last copy steps (16 or 4 bytes each) that stay in that "
              "thread's registers instead of shared memory: the shared copy shrinks by that many steps of the whole "
              "block, so that more blocks fit on a multiprocessor. Every read of those elements must be made by the "
              "thread that copied them, in a loop that is unrolled (the place of each element known when compiling). "
              "At least one step stays in shared memory, and a copy that does not divide evenly over the block's "
              "threads (another problem size) stays wholly in shared memory.",
              false, 0),
      int_arg("innermost",
              "Of a shared copy, the source dimension (0 = outermost) laid out innermost in the copy, the others "
              "keeping their order: a transposed copy, so that, say, the tensor cores read a tensor stored with the "
              "reduction outermost as K-major rows. Pad and swizzle then apply to rows along that dimension, and the "
              "copy moves 4 bytes at a time with the block's threads or cp.async (not the bulk engine or the tensor "
              "memory accelerator). -1 (the default) keeps the source's order.",
              false, -1),
      name_arg("name", "Name of the copy (default source + \"_\" + scope).", false)};
  p.before = "for ko:\n  for ki: acc += A[i, ko*32+ki] * B[ko*32+ki, j]";
  p.after =
      "for ko:\n  A_shared[0:BM, 0:32] = A[i0:i0+BM, ko*32 : ko*32+32]; barrier\n  for ki: acc += A_shared[ii, ki] * "
      "B[ko*32+ki, j]";
  p.example = R"({"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "ko", "pad": 4})";
  p.apply = [](ScheduleState& st, StepJson& step) {
    std::string stage = step["stage"], source = step["source"], at = step["at"];
    StageSchedule& s = st.stage(stage);
    const FuncDef* f = st.stage_def(stage);
    if (!loads_from(f->body, source))
      fail("cache-read-not-read", "Stage '" + stage + "' does not read '" + source + "'.",
           "Name a tensor or stage that it reads.");
    require_loop(s, at);
    if (step["pad"].get<int64_t>() < 0)
      fail("bad-padding", "Padding must not be negative.", "Use 0 or a positive element count.");
    if (step["pad"].get<int64_t>() > 0 && step["swizzle"].get<bool>())
      fail("pad-and-swizzle", "cache_read cannot both pad and swizzle.", "Choose padding or a swizzle.");
    const int64_t registers = step["registers"].get<int64_t>();
    if (registers < 0)
      fail("bad-registers", "cache_read registers must not be negative.",
           "Use 0 (all in shared memory) or a positive step count.");
    if (registers > 0 && step["scope"] != "shared")
      fail("registers-not-shared",
           "cache_read registers keeps part of a shared copy in registers, but this copy's scope is '" +
               step["scope"].get<std::string>() + "'.",
           "Use scope shared, or drop registers (a register copy is wholly in registers).");
    if (registers > 0 && (step["pad"].get<int64_t>() > 0 || step["swizzle"].get<bool>()))
      fail("registers-padded", "cache_read registers needs a dense shared copy, but this one is padded or swizzled.",
           "Drop pad and swizzle, or drop registers.");
    if (registers > 16)
      fail("registers-too-many",
           "cache_read registers asks for " + std::to_string(registers) +
               " copy steps per thread in registers; at most 16 (64 floats) are allowed.",
           "Keep at most 16 steps in registers.");
    const int64_t innermost = step["innermost"].get<int64_t>();
    if (innermost != -1) {
      const size_t rank = st.rank_of(source);
      if (innermost < 0 || innermost >= static_cast<int64_t>(rank))
        fail("bad-innermost",
             "cache_read innermost " + std::to_string(innermost) + " is not a dimension of '" + source + "' (it has " +
                 std::to_string(rank) + ").",
             "Use -1 (the source's order) or a dimension from 0 to " + std::to_string(rank - 1) + ".");
      if (step["scope"] != "shared")
        fail("innermost-not-shared",
             "cache_read innermost lays out a shared copy, but this copy's scope is '" +
                 step["scope"].get<std::string>() + "'.",
             "Use scope shared, or drop innermost.");
      if (registers > 0)
        fail("registers-transposed",
             "cache_read registers needs a copy in the source's order, but this one sets innermost.",
             "Drop innermost or registers.");
    }
    if (step["name"].is_null()) step["name"] = source + "_" + step["scope"].get<std::string>();
    for (const auto& c : s.cache_reads)
      if (c.source == source)
        fail("cache-read-twice", "Stage '" + stage + "' already stages '" + source + "'.",
             "Stage each source once per stage.");
    std::string name = step["name"];
    require_identifier(name, "staged copy");
    bool taken = st.stage_def(name) || st.ctx.pipeline.find_input(name);
    for (const auto& c : s.cache_reads) taken = taken || c.name == name;
    if (taken) fail("duplicate-name", "The name '" + name + "' is already taken.", "Choose another name.");
    CacheRead c;
    c.source = source;
    c.name = step["name"];
    c.scope = parse_mem_scope(step["scope"]);
    c.at_loop = at;
    c.pad = static_cast<int>(step["pad"].get<int64_t>());
    c.swizzle = step["swizzle"];
    c.share = step["share"];
    c.registers = static_cast<int>(registers);
    c.innermost = static_cast<int>(innermost);
    s.cache_reads.push_back(c);
  };
  return p;
}

}  // namespace cusched
