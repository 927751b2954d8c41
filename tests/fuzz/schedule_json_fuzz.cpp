// libFuzzer target: arbitrary bytes -> JSON -> validate_schedule against every
// problem's small context (and its strict variant). A UserError is the expected
// answer to bad input; any other exception, an abort or an ASan report is a bug.
// Accepted schedules must replay through JSON and the text form unchanged. The
// same bytes are also read as the text form.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dsl/schedule.h"
#include "problems/problem.h"
#include "tests/fuzz/fuzz_failure.h"

namespace {

using nlohmann::json;

const std::vector<cusched::ScheduleContext>& contexts() {
  static const std::vector<cusched::ScheduleContext> all = [] {
    std::vector<cusched::ScheduleContext> out;
    for (const auto& p : cusched::all_problems()) {
      out.push_back(p.context("small"));
      out.push_back(p.context("small", true));
    }
    return out;
  }();
  return all;
}

[[noreturn]] void bug(const std::string& what, const std::string& detail) {
  cusched::fuzz::bug("schedule", what, detail);
}

void check_json(const cusched::ScheduleContext& ctx, const json& steps) {
  cusched::ValidationResult r;
  try {
    r = cusched::validate_schedule(ctx, steps);
  } catch (const std::exception& e) {
    bug("validate_schedule threw something other than a structured error", e.what());
  }
  if (!r.ok) {
    if (r.error.code.empty() || r.error.message.empty()) bug("an error without code or message", r.error.to_string());
    if (r.error.code == "bad-argument")
      bug("an argument passed the type checks but could not be read", r.error.to_string());
    return;
  }
  try {
    cusched::Schedule again = cusched::Schedule::from_json(ctx, r.steps);
    if (again.to_json() != r.steps) bug("the normalised steps do not replay to themselves", r.steps.dump());
    cusched::Schedule text = cusched::Schedule::from_text(ctx, again.to_text());
    if (text.to_json() != r.steps) bug("the text form does not replay to the same steps", again.to_text());
  } catch (const cusched::UserError& e) {
    bug("a valid schedule failed to replay: " + e.error().to_string(), r.steps.dump());
  } catch (const std::exception& e) {
    bug("replay threw something other than a structured error", e.what());
  }
}

void check_text(const cusched::ScheduleContext& ctx, const std::string& text) {
  cusched::fuzz::only_structured_errors("schedule", "from_text", [&] { cusched::Schedule::from_text(ctx, text); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  json steps = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  for (const auto& ctx : contexts()) {
    if (!steps.is_discarded()) check_json(ctx, steps);
    check_text(ctx, bytes);
  }
  return 0;
}
