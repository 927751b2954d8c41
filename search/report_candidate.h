#pragma once
// What the report shows a code reviewer of one candidate: its schedule in the text form,
// its CUDA source and loop IR (stored, or lowered again at the size the report asks
// for), its launch plan, the ptxas resources its GPU evaluation kept, the cost model's
// estimate per kernel, and diffs against its parent (changed lines with context, and
// side by side). HTML fragments.
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"
#include "problems/problem.h"
#include "search/cost_model.h"
#include "search/store.h"

namespace cusched::search {

struct ReportOptions {
  // The run's problem; without it the report shows the stored artifacts and the
  // schedule on one line (schedule_one_line) instead of its text form.
  const Problem* problem = nullptr;
  // The size (a table of `problem`) the sources, IR and launch plans are lowered at;
  // empty: the run's size, from the store where it keeps them.
  std::string size;
};

// One candidate's lowering as the report shows it.
struct CandidateLowering {
  std::string schedule_text;  // Schedule::to_text, else schedule_one_line; empty for a hand-written kernel
  std::string size;           // the size of cuda_source, ir_text and launches
  bool relowered = false;     // lowered at report time, not read from the store
  std::string cuda_source, ir_text;
  std::vector<LaunchSpec> launches;
  std::optional<CostBreakdown> cost;  // the cost model at the bench size, for verified candidates
  std::string error;                  // why lowering at `size` failed, when it did
};

CandidateLowering candidate_lowering(const Store& store, const RunInfo& run, const CandidateRecord& candidate,
                                     bool verified, const ReportOptions& options);

// The unified diff of two texts, unchanged lines more than two from a change collapsed.
std::string render_diff(const std::string& before, const std::string& after);
// The same diff in two columns, parent | candidate, with line numbers.
std::string render_side_by_side(const std::string& before, const std::string& after);

// The launch plan, the ptxas resources and the per-kernel cost estimate of a verified
// candidate: one <div class="review-tables"> of three tables (or notes where a piece is
// not known). The ptxas resources are those of the kernels compiled at `run_size`.
std::string render_review_tables(const Store& store, const CandidateRecord& candidate,
                                 const CandidateLowering& lowering, const std::string& run_size);

}  // namespace cusched::search
