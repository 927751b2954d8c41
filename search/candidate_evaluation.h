#pragma once
// One candidate, end to end: validate the schedule, lower it, emit CUDA, audit it,
// then verify it (and time it on a GPU) or verify it in the CPU interpreter.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "codegen/kernel_bundle.h"
#include "problems/problem.h"
#include "runtime/evaluation.h"
#include "runtime/interp_verification.h"
#include "runtime/sanitizer.h"
#include "runtime/worker.h"

namespace cusched::search {

struct EvalConfig {
  std::string backend = "gpu";  // "gpu" or "interp"
  std::string size = "bench";   // interp runs at "small"
  uint64_t seed = 1;
  bool strict = false;  // the problem's 1e-4 tolerance
  bool time_it = true;
  std::string inputs_dir, save_io_dir;
  int save_io_trials = 0;         // the first this many trials are saved (0: every one)
  bool time_each_launch = false;  // also time each launch alone (EvalResult::launch_ms)
  double watchdog_s = 20;
  bool audit = true;
  bool check_bench = true;  // also lower at the bench size: cost estimate and shared-memory limit
  // Above 0: one warm-up, and timing stops after the first timed run when it takes longer
  // (TimingConfig::cut_ms); the search sets it from the best time so far.
  double cut_ms = 0;
  // Above 0: a candidate's timed series stops after about this many ms of timed runs
  // (TimingConfig::budget_ms); the search sets it (--timing-budget).
  double timing_budget_ms = 0;
  nlohmann::json to_json() const;  // every field
  // Reads what to_json writes; throws nlohmann::json::exception when a field is missing.
  static EvalConfig from_json(const nlohmann::json& j);
};

struct CandidateOutcome {
  // None until a check decides: invalid_schedule, lowering_error or audit_rejected before
  // any run, else the verification's verdict.
  std::optional<runtime::Verdict> verdict;
  std::string reason;    // one sentence
  Error error;           // for invalid_schedule / lowering_error
  nlohmann::json steps;  // normalised schedule
  std::string schedule_hash;
  std::string ir_text;
  KernelBundle bundle;
  nlohmann::json audit_findings = nlohmann::json::array();
  double audit_ms = 0;
  std::optional<runtime::EvalResult> gpu;
  std::optional<runtime::InterpVerification> interp;
  nlohmann::json sanitizer;     // sanitize_schedule / sanitize_bundle, null when not run
  double cost_estimate_ms = 0;  // the analytical cost model's estimate
  Precision precision = Precision::f32;
  std::string math = "exact";  // "fast" when a stage uses fast-math intrinsics
  bool verified() const { return verdict == runtime::Verdict::ok; }
  std::string verdict_text() const { return verdict ? runtime::verdict_name(*verdict) : ""; }
  // The evaluation record the store keeps: every field but steps, ir_text and
  // bundle, which the store keeps apart; error, gpu and interp only when set.
  nlohmann::json to_json() const;
  // Every field: to_json() plus steps, ir_text and (when it has source) bundle.
  nlohmann::json to_json_with_artifacts() const;
  // Reads either form; what a form leaves out keeps its default. JSON has no NaN
  // or infinity: they read back as NaN. Throws nlohmann::json::exception when a
  // field that to_json always writes is missing, UserError for a malformed bundle
  // or GPU result.
  static CandidateOutcome from_json(const nlohmann::json& j);
};

// The EvalRequest for a bundle of `problem`: its reference, inputs, tolerance and floor.
runtime::EvalRequest make_eval_request(const Problem& problem, const KernelBundle& candidate, const EvalConfig& cfg);

// The largest shared memory one H200 block can use (227 KiB).
constexpr int64_t kMaxSharedBytesPerBlock = 232448;

// The first launch of `bundle` whose dynamic shared memory exceeds kMaxSharedBytesPerBlock,
// as the structured error "shared-memory-too-large" (`size` names the problem size in
// the message), or nothing.
std::optional<Error> shared_memory_error(const KernelBundle& bundle, const std::string& size);

// The CPU part of one candidate: validate (at the evaluation size and, for a smaller
// size, at the bench size the cost model speaks of), lower, emit, estimate, audit and,
// with `compile` on the GPU backend, compile (precompile). Leaves the verdict empty when
// the candidate is ready for verification; the validated schedule is stored in *schedule
// when given.
CandidateOutcome prepare_candidate(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                   std::optional<Schedule>* schedule = nullptr, bool compile = true);

// Compiles `bundle` with NVRTC for GPU 0 into the compile cache (nothing without a GPU).
void precompile(const KernelBundle& bundle);

// Verifies a prepared candidate in the interpreter, or verifies and times it on the
// GPU through `worker` (created on demand when null).
void verify_candidate(const Problem& problem, const Schedule& schedule, const EvalConfig& cfg, runtime::Worker* worker,
                      CandidateOutcome& out);

// Verifies and times out.bundle (generated or hand-written) on the GPU through
// `worker` (created on demand when null).
void verify_bundle_on_gpu(const Problem& problem, const EvalConfig& cfg, runtime::Worker* worker,
                          CandidateOutcome& out);

// prepare_candidate, then verify_candidate when it is ready.
CandidateOutcome evaluate_candidate(const Problem& problem, const nlohmann::json& steps, const EvalConfig& cfg,
                                    runtime::Worker* worker);

// The bundle of a hand-written kernel for `problem` at `size`: `source` with the
// device library as headers, the problem's buffers, and one launch of its contract's
// kernel with the contract's parameters, `grid`, `block` and `dynamic_smem` bytes.
KernelBundle handwritten_bundle(const Problem& problem, const std::string& source, const std::string& size,
                                Precision precision, const std::array<int64_t, 3>& grid,
                                const std::array<int64_t, 3>& block, int64_t dynamic_smem);

// The scans of `bundle` compiled with NVRTC for sm_90a, which need no GPU: sets
// out.verdict, with its reason, to "undeclared_precision" when the code computes in a
// precision narrower than the declared one (runtime/precision_scan.h), to
// "persistent_state" when it keeps state from one launch to the next
// (runtime/module_state_scan.h), or to "compile_error".
void scan_compiled_kernel(const KernelBundle& bundle, CandidateOutcome& out);

// The size compute-sanitizer runs schedule `steps` at, with its bundle: the small size (a
// short launch under the tools), or, where lowering refuses it there (a pipeline on the
// tensor memory accelerator needs rows of whole 16-byte chunks) or a block would need more
// shared memory than it can have (a tile over columns fused across rows spans many more
// rows of a short image), the small size with 16-byte rows ("small_rows16"), then that
// size with every extent 2, 4 or 8 times larger, at most the default size's
// ("small_rows16_x2", ...), then the default size divided by 64, 32 or 16, at least
// "small_rows16"'s extents ("bench_div64", ...: a split into a number of parts needs an
// extent those parts cover evenly, which the size the schedule was made for keeps); each
// added to the returned problem. Throws the small size's error where none does.
struct SanitizerSize {
  Problem problem;
  std::string size;
  KernelBundle bundle;
};
SanitizerSize sanitizer_size(const Problem& problem, const nlohmann::json& steps, bool strict);

// compute-sanitizer's memcheck, racecheck and synccheck (runtime/sanitizer.h) on the
// schedule `steps` at its sanitizer_size: {"clean": bool, "size": ..., "runs": [...]}.
// Needs a GPU; without one every run says why it did not run. A tool's run is stopped after
// `tool_seconds` (runtime::sanitize).
nlohmann::json sanitize_schedule(const Problem& problem, const nlohmann::json& steps, bool strict,
                                 double tool_seconds = runtime::kSanitizerToolSeconds);

// The same for a prepared bundle (a hand-written kernel at the size it was built for).
nlohmann::json sanitize_bundle(const Problem& problem, const KernelBundle& bundle, const EvalConfig& cfg,
                               double tool_seconds = runtime::kSanitizerToolSeconds);

// The kernel contract of each launch of a bundle, as audit::KernelContract JSON:
// its kernel name and one parameter per argument, inputs `const T*`, each output
// `T*` and written in the last launch that receives it; other arguments (scratch,
// an output an earlier launch reads) accept any pointer type.
nlohmann::json bundle_contracts(const KernelBundle& bundle);

// The audit of a bundle's source, against bundle_contracts(bundle), as JSON
// findings; sets *has_error.
nlohmann::json audit_bundle(const Problem& problem, const KernelBundle& bundle, bool* has_error, double* ms);

}  // namespace cusched::search
