// The verdict on a candidate: what its evaluation found, from the schedule's legality
// to the GPU run. Names ("wrong_output", ...) are used only where verdicts meet JSON,
// the store and printed text.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace cusched::runtime {

enum class Verdict {
  ok,
  // The candidate's outputs.
  wrong_output,
  unwritten_output,
  nan_or_inf,
  input_modified,
  // The candidate wrote into a guard region before or after one of its buffers.
  out_of_bounds_write,
  // The compiled code rounds to a precision lower than the one declared (PTX conversions, MMA operand types).
  undeclared_precision,
  // The compiled code keeps state from one launch to the next (global variables, the device heap).
  persistent_state,
  // Compiling, launching and running it.
  compile_error,
  launch_error,
  illegal_address,
  timeout,
  crashed,
  under_floor,
  // compute-sanitizer found errors in a run that verified.
  sanitizer_findings,
  // Before any run: the schedule's legality, its lowering, the audit of its source.
  invalid_schedule,
  lowering_error,
  audit_rejected,
  // The evaluation refused the candidate (a lowering or interpreter error on the
  // interpreter path, or an evaluator that does not take it), with its error.
  rejected,
  // The reference output holds NaN or Inf, so the inputs cannot judge a candidate.
  reference_degenerate,
  no_gpu,
  // Not in the candidate's control: the runtime, the request or the reference failed.
  internal_error,
};

std::string verdict_name(Verdict v);  // "wrong_output"
std::optional<Verdict> verdict_from_name(const std::string& s);
inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << verdict_name(v); }

}  // namespace cusched::runtime
