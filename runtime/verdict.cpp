#include "runtime/verdict.h"

#include <utility>

namespace cusched::runtime {
namespace {

const std::pair<Verdict, const char*> kVerdictNames[] = {
    {Verdict::ok, "ok"},
    {Verdict::wrong_output, "wrong_output"},
    {Verdict::unwritten_output, "unwritten_output"},
    {Verdict::nan_or_inf, "nan_or_inf"},
    {Verdict::input_modified, "input_modified"},
    {Verdict::out_of_bounds_write, "out_of_bounds_write"},
    {Verdict::undeclared_precision, "undeclared_precision"},
    {Verdict::persistent_state, "persistent_state"},
    {Verdict::compile_error, "compile_error"},
    {Verdict::launch_error, "launch_error"},
    {Verdict::illegal_address, "illegal_address"},
    {Verdict::timeout, "timeout"},
    {Verdict::crashed, "crashed"},
    {Verdict::under_floor, "under_floor"},
    {Verdict::sanitizer_findings, "sanitizer_findings"},
    {Verdict::invalid_schedule, "invalid_schedule"},
    {Verdict::lowering_error, "lowering_error"},
    {Verdict::audit_rejected, "audit_rejected"},
    {Verdict::rejected, "rejected"},
    {Verdict::reference_degenerate, "reference_degenerate"},
    {Verdict::no_gpu, "no_gpu"},
    {Verdict::internal_error, "internal_error"},
};

}  // namespace

std::string verdict_name(Verdict v) {
  for (const auto& [verdict, name] : kVerdictNames)
    if (verdict == v) return name;
  return "internal_error";
}

std::optional<Verdict> verdict_from_name(const std::string& s) {
  for (const auto& [verdict, name] : kVerdictNames)
    if (s == name) return verdict;
  return std::nullopt;
}

}  // namespace cusched::runtime
