#pragma once
// One evaluation of a candidate kernel bundle against its float64 reference:
// verification on fresh inputs, then timing against the problem's floor.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/kernel_bundle.h"
#include "runtime/verdict.h"

namespace cusched::runtime {

// normal(mean a, std b) | uniform(lo a, hi b) | randint(lo a, hi b inclusive)
struct Distribution {
  std::string kind = "normal";
  double a = 0, b = 1;
};

struct InputSpec {
  std::string buffer;
  Distribution standard;
  std::optional<Distribution> adversarial;  // one extra trial when given
};

struct Tolerance {
  double atol = 1e-2, rtol = 1e-2, rel_l2 = 1e-2;
  // The problem's output is constant by construction (Problem::constant_output): a
  // constant reference is judged like any other instead of refused as degenerate.
  bool constant_reference = false;
};

struct TimingConfig {
  int warmup = 5;
  int repeats = 30;
  bool flush_l2 = true;
  // Above 0: a series whose first timed run takes longer than this stops after it, so a
  // candidate far behind the best costs one timed launch (EvalResult::timing_cut).
  double cut_ms = 0;
  // Above 0: the series stops once its timed runs add up to more than this many ms and
  // at least min_repeats have run, and the warm-ups stop once they took longer than a
  // tenth of it, so a slow candidate costs about this much timing, not repeats x its time.
  double budget_ms = 0;
  int min_repeats = 5;
};

// The least time the problem can take: its bytes over the copy bandwidth or its
// FLOPs over the unit's rate at `precision`, whichever is larger.
// The least work a problem needs: bytes moved (of which written_bytes are written, the
// rest read), FLOPs, and the precision whose rate the FLOPs run at.
struct Floor {
  double bytes = 0, flops = 0;
  Precision precision = Precision::f32;
  double written_bytes = 0;
};

struct EvalRequest {
  KernelBundle candidate, reference;
  std::vector<InputSpec> inputs;  // inputs not listed: normal(0, 1) floats, randint(0, 9) integers
  Tolerance tol;
  TimingConfig timing;
  Floor floor;
  int seeds = 3;  // trials from the standard distributions (at least 3 are run)
  uint64_t base_seed = 0;
  bool time_it = true;
  std::string inputs_dir;   // <buffer>.npy files for one extra first trial
  std::string save_io_dir;  // writes trial<k>_<buffer>[.reference].npy
  int save_io_trials = 0;   // of the trials, the first this many are written (0: every one)
  // Of the planned trials, the first this many run (0: every one). Only runs whose
  // verdict is not the verification set it: compute-sanitizer's (runtime/sanitizer.h).
  int trial_limit = 0;
  double watchdog_s = 20;  // longest wait for one launch sequence
  int device = 0;          // CUDA device index
  // Check on the host (download every output, input and reference) instead of
  // on the device with the trial cache. Also chosen by the environment variable
  // CUSCHED_HOST_CHECK=1.
  bool host_check = false;
  // Also time each launch of a multi-launch candidate on its own (L2 flushed, same
  // repeats), on the buffers a full run has filled: EvalResult::launch_ms.
  bool time_each_launch = false;
  // Map the candidate's inputs read-only for the device during its launches (where
  // the driver offers it), so that a write to an input faults. Off for an evaluation
  // in the calling process, whose CUDA context a fault would end; the worker process
  // (Worker::evaluate) turns it on.
  bool read_only_inputs = false;

  nlohmann::json to_json() const;
  static EvalRequest from_json(const nlohmann::json& j);
};

// Wall-clock milliseconds an evaluation spent in each phase, summed over trials.
struct PhaseTimes {
  double compile = 0;    // NVRTC (or its cache) for candidate and reference, and loading the modules
  double generate = 0;   // input generation on the GPU (and reading and uploading inputs_dir)
  double upload = 0;     // host-to-device copies of the inputs (host check)
  double candidate = 0;  // the candidate's buffers, launches and wait, per trial
  double reference = 0;  // the reference's buffers, launches and wait
  double download = 0;   // device-to-host copies of outputs, inputs and reference (host check only)
  double check = 0;      // comparisons: inputs unchanged, reference sanity, outputs, cache integrity
  double timing = 0;     // copy bandwidth (first time in a process) and the timed runs
  double gpu_wait = 0;   // waiting for the GPU lock (CUSCHED_GPU_LOCK) before the first launch
  nlohmann::json to_json() const;
  static PhaseTimes from_json(const nlohmann::json& j);
};

struct EvalResult {
  Verdict verdict = Verdict::internal_error;
  std::string message;                                      // why, one sentence
  std::string failed_buffer;                                // the output (or input) a verification failure is about
  int failed_trial = -1;                                    // the trial that failed, -1 when none did
  double max_abs_err = 0, max_rel_err = 0, rel_l2_err = 0;  // worst over trials and outputs
  int trials = 0;                                           // verification trials that ran
  std::vector<double> times_ms;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double floor_ms = 0, pct_of_floor = 0;
  double copy_bandwidth_gbs = 0;                // measured once per process, bytes read + written
  double read_bandwidth_gbs = 0;                // measured once per process, bytes read by a read-only stream
  nlohmann::json compile_report;                // {"candidate": ..., "reference": ...}
  Precision precision = Precision::f32;         // declared
  std::optional<Precision> compiled_precision;  // the narrowest found in the candidate's PTX (runtime/precision_scan.h)
  std::string input_protection;  // "read-only mapping" or "checksum" (see InputProtection), with the note below
  std::string input_protection_note;
  int timed_runs_verified = 0;  // timed runs whose outputs were checked against the reference
  bool timing_cut = false;      // the first timed run exceeded TimingConfig::cut_ms: the only one
  int timing_input_sets = 0;    // the distinct input sets the timed runs rotated over
  std::string device_name;
  PhaseTimes phase_ms;
  std::string check_path;        // "device" (trial cache and device-side checks) or "host"
  bool trial_cache_hit = false;  // every trial's inputs and reference outputs came from the trial cache
  // Median of each launch timed alone, in launch order (EvalRequest::time_each_launch).
  std::vector<std::pair<std::string, double>> launch_ms;

  bool passed() const { return verdict == Verdict::ok; }
  nlohmann::json to_json() const;
  static EvalResult from_json(const nlohmann::json& j);
};

// A number that JSON may hold as null (NaN and infinity are written as null): null
// reads back as NaN; an absent key reads as `absent` or, without it, throws
// (nlohmann::json's out_of_range).
double json_number_or_nan(const nlohmann::json& j, const char* key, std::optional<double> absent = std::nullopt);

// Called with a short phase name ("compiled", "trial 2", "timed") as the
// evaluation advances; the worker turns these into heartbeats.
using ProgressFn = std::function<void(const std::string& phase)>;

// Whether `request` is checked on the host (see EvalRequest::host_check).
bool uses_host_check(const EvalRequest& request);

// Runs the whole evaluation in this process (needs a GPU; without a driver the
// verdict is no_gpu). Trials are kept in this process's trial cache
// (runtime/trial_cache.h) unless the host check is used. A fault that breaks the CUDA context (illegal address,
// timeout) leaves this process unable to use the GPU again: run untrusted
// candidates through Worker instead.
EvalResult evaluate(const EvalRequest& request, const ProgressFn& progress = {});

// True after a verdict that leaves the CUDA context of the evaluating process unusable.
bool verdict_breaks_context(Verdict v);

}  // namespace cusched::runtime
