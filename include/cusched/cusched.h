#pragma once
// cusched as a library, in one include: the algorithm language and schedules (dsl/),
// problems and their automatic baselines (problems/), lowering, the CUDA emitter and
// the CPU interpreter (codegen/), verification and timing (runtime/), and the search
// with its proposers, store, report and export (search/). Link cusched::cusched
// (find_package(cusched CONFIG REQUIRED)); docs/library.md walks through it.
//
// What each `cusched` command calls:
//   validate  validate_schedule(problem.context(size), steps)
//   lower     lower(Schedule::from_json(ctx, steps), name), print_ir, make_bundle(...).source
//   run       search::evaluate_candidate(problem, steps, EvalConfig, nullptr)
//   search    search::SearchLoop(problem, store, proposer, SearchOptions, log).run()
//   report    search::render_report / write_report(store, run)
//   export    search::export_candidate(store, candidate, run, ExportOptions)
#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/interpreter.h"
#include "codegen/ir.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/schedule.h"
#include "problems/automatic_baseline.h"
#include "problems/problem.h"
#include "runtime/cuda_driver.h"
#include "runtime/interp_verification.h"
#include "runtime/worker.h"
#include "search/builtin_proposer.h"
#include "search/candidate_evaluation.h"
#include "search/export.h"
#include "search/file_proposer.h"
#include "search/loop.h"
#include "search/report.h"
#include "search/store.h"

namespace cusched {

#ifdef CUSCHED_INSTALL_PREFIX
// Programs built against the installed package find its cusched-worker (GPU runs
// evaluate candidates in that separate process) under the prefix the package config
// was found in.
namespace detail {
inline const bool install_prefix_known = (runtime::set_install_prefix(CUSCHED_INSTALL_PREFIX), true);
}  // namespace detail
#endif

}  // namespace cusched
