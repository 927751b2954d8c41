#pragma once
// NVIDIA compute-sanitizer (memcheck, racecheck, synccheck) on one evaluation of a
// candidate: the request, untimed, checked on the host (so that only the candidate's
// and the reference's kernels run) and cut to its first trial, is evaluated by cusched-worker
// --evaluate-file under each tool, and the tool's error summary is kept.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/evaluation.h"

namespace cusched::runtime {

// The default limit of one compute-sanitizer tool's run, in seconds.
constexpr double kSanitizerToolSeconds = 90;

// The tools sanitize() runs unless told otherwise.
inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck", "synccheck"};

struct SanitizerRun {
  std::string tool;                   // "memcheck", "racecheck", "synccheck"
  int errors = -1;                    // from the tool's summary line; -1 when the tool did not run
  std::vector<std::string> findings;  // the first lines of the tool's report that name an error
  std::string problem;                // why the tool did not run or report, or ""
  double seconds = -1;                // wall seconds of the tool's run; -1 when it did not start
  nlohmann::json to_json() const;
};

// Reads a compute-sanitizer log into run.errors and run.findings: memcheck and synccheck
// end with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards
// displayed (E errors, W warnings)", whose errors and warnings both count. False when
// the log has neither summary.
bool read_sanitizer_log(const std::string& text, SanitizerRun& run);

// $CUSCHED_COMPUTE_SANITIZER, else /usr/local/cuda/bin/compute-sanitizer, else
// compute-sanitizer on PATH; nullopt when none is executable.
std::optional<std::string> find_compute_sanitizer();

// Runs each tool on `request`; `worker` is the cusched-worker binary (empty: find_worker_binary()).
// A tool's run still going after `timeout_s` seconds is stopped (the evaluation under it may
// hold the GPU lock, runtime/gpu_lock.h, that other processes wait for); its `problem` says so.
std::vector<SanitizerRun> sanitize(const EvalRequest& request, const std::vector<std::string>& tools = kSanitizerTools,
                                   const std::string& worker = "", double timeout_s = kSanitizerToolSeconds);

// {"clean": bool, "runs": [...]}: clean when every tool ran and reported no error.
nlohmann::json sanitizer_report(const std::vector<SanitizerRun>& runs);

}  // namespace cusched::runtime
