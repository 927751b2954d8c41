#include "search/prompt_problem.h"

#include <sstream>

#include "dsl/expr_text.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"

namespace cusched::search {
namespace {

std::string sizes_text(const SizeBindings& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return out;
}

std::string shape_text(const std::vector<Expr>& shape, const SizeBindings& at) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(eval_int(shape[i], at));
  return out + ")";
}

std::string run_size_of(const Problem& p, const PromptSetting& s) {
  return s.run_size.empty() ? (s.backend == "interp" ? "small" : p.default_size) : s.run_size;
}

}  // namespace

std::string judged_size(const Problem& problem, const PromptSetting& setting) {
  return setting.backend == "interp" ? problem.default_size : run_size_of(problem, setting);
}

std::string judging_text(const Problem& problem, const PromptSetting& setting) {
  const std::string run = run_size_of(problem, setting), judged = judged_size(problem, setting);
  std::ostringstream s;
  s << "Every candidate is lowered to CUDA, audited, and verified against a float64 reference on fresh random "
       "inputs (atol "
    << problem.atol << ", rtol " << problem.rtol << "); only verified candidates count. ";
  if (setting.backend == "interp") {
    s << "This run has no GPU: candidates are verified in a CPU interpreter of the generated program at the '" << run
      << "' size (" << sizes_text(problem.size(run)) << ") and ranked by a cost model's estimate of their time at "
      << "the '" << judged << "' size (" << sizes_text(problem.size(judged)) << "), in milliseconds. Nothing is "
      << "timed: the estimate models DRAM traffic, FLOPs and occupancy, so fewer bytes moved, more parallelism and "
      << "coalesced, vectorised accesses lower it. ";
  } else {
    s << "Candidates are timed on the GPU at the '" << run << "' size (" << sizes_text(problem.size(run))
      << "): the median of at least 30 launches in milliseconds, with the L2 cache flushed before each launch. ";
  }
  s << "The floor is the problem's bytes over the copy bandwidth (or its FLOPs over the unit's peak rate); 100% of "
       "the floor is the fastest possible time. Lower milliseconds are better.";
  return s.str();
}

std::string problem_brief(const Problem& p, const PromptSetting& setting) {
  const std::string run = run_size_of(p, setting), judged = judged_size(p, setting);
  const SizeBindings& run_sizes = p.size(run);
  const SizeBindings& judged_sizes = p.size(judged);
  std::ostringstream s;
  s << "# Problem: " << p.name << "\n" << p.title << ".";
  if (!p.torch_semantics.empty()) s << " It reproduces the PyTorch expression `" << p.torch_semantics << "`.";
  if (!p.notes.empty()) s << " " << p.notes;
  s << "\n\nSizes: '" << run << "' " << sizes_text(run_sizes);
  if (judged != run) s << "; '" << judged << "' (the size the estimates refer to) " << sizes_text(judged_sizes);
  s << ".\n\nInputs (float tensors in row-major order):\n";
  for (const auto& in : p.pipeline.inputs()) {
    s << "- " << in->name << ": " << dtype_name(in->dtype) << " " << shape_text(in->shape, run_sizes);
    if (judged != run) s << " at '" << run << "', " << shape_text(in->shape, judged_sizes) << " at '" << judged << "'";
    s << "\n";
  }
  s << "\n## Algorithm\nStages, producers first. A schedule names these stages and their loops exactly as written "
       "here (pure loops are the stage's index variables; reduction loops are the variables it sums, maxes or "
       "otherwise reduces over):\n";
  for (const auto& st : p.pipeline.stages()) {
    s << "- stage `" << st->name << "` (" << dtype_name(st->dtype) << (p.pipeline.is_output(st->name) ? ", output" : "")
      << "): `" << stage_to_text(*st) << "`\n";
    auto loop_line = [&](const std::string& name, const char* kind, const Expr& extent) {
      s << "  - loop `" << name << "` (" << kind << "): extent " << expr_to_text(extent) << " = "
        << eval_int(extent, run_sizes);
      if (judged != run) s << " at '" << run << "', " << eval_int(extent, judged_sizes) << " at '" << judged << "'";
      s << "\n";
    };
    for (size_t v = 0; v < st->vars.size(); ++v) loop_line(st->vars[v], "pure", st->extents[v]);
    if (st->is_reduction())
      for (const auto& r : st->body->rvars) loop_line(r.name, "reduction", r.extent_expr);
  }
  nlohmann::json baseline = baseline_schedule_of(p);
  if (baseline.is_array() && !baseline.empty()) {
    s << "\n## Baseline schedule\nA simple, correct schedule of this problem (candidate 1 of the run); a good first "
         "step is to modify it:\n```json\n"
      << baseline.dump() << "\n```\n";
    try {
      s << "The same, one step per line:\n```\n" << Schedule::from_json(p.context(run), baseline).to_text() << "```\n";
    } catch (const UserError&) {
      // The JSON above is complete; the text form is only a reading aid.
    }
  }
  s << "\n## How candidates are judged\n" << judging_text(p, setting) << "\n";
  if (judged != run)
    s << "The generated CUDA shown below for candidates was generated at the '" << run << "' size ("
      << sizes_text(run_sizes) << "); loop extents and grid sizes scale to the '" << judged << "' size ("
      << sizes_text(judged_sizes) << ") that the estimates refer to, so choose split factors for those extents.\n";
  return s.str();
}

}  // namespace cusched::search
