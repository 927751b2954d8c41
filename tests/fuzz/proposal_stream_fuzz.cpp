// libFuzzer target: arbitrary bytes as a proposal stream. The bytes are read as the
// file proposer reads a .jsonl stream (one proposal per line) and as an LLM reply
// from which the first JSON value is extracted; every schedule found is validated
// against every problem's small context. Structured errors and recorded events are
// the expected answers; any other exception, an abort or an ASan report is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "dsl/schedule.h"
#include "problems/problem.h"
#include "search/file_proposer.h"
#include "search/llm_client.h"
#include "tests/fuzz/fuzz_failure.h"

namespace {

const std::vector<cusched::ScheduleContext>& contexts() {
  static const std::vector<cusched::ScheduleContext> all = [] {
    std::vector<cusched::ScheduleContext> out;
    for (const auto& p : cusched::all_problems()) out.push_back(p.context("small"));
    return out;
  }();
  return all;
}

[[noreturn]] void bug(const std::string& what, const std::string& detail) {
  cusched::fuzz::bug("proposal", what, detail);
}

void validate_everywhere(const nlohmann::json& schedule) {
  for (const auto& ctx : contexts()) {
    try {
      cusched::ValidationResult r = cusched::validate_schedule(ctx, schedule);
      if (!r.ok && (r.error.code.empty() || r.error.message.empty()))
        bug("an error without code or message", r.error.to_string());
      if (!r.ok) (void)r.error.to_json().dump();  // every error prints as JSON
    } catch (const std::exception& e) {
      bug("validate_schedule threw something other than a structured error", e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream stream(bytes);
    cusched::search::FileProposer proposer(stream, "fuzz");
    cusched::search::ProposalContext ctx;
    auto round = proposer.propose(ctx, 4, 4);
    for (const auto& e : round.events)
      if (e.kind.empty()) bug("an event without a kind", e.detail);
    for (const auto& p : round.proposals) validate_everywhere(p.schedule);
    if (auto j = cusched::search::extract_first_json(bytes)) {
      (void)j->dump();
      if (j->is_array())
        validate_everywhere(*j);
      else if (j->is_object() && j->contains("schedule"))
        validate_everywhere((*j)["schedule"]);
    }
  } catch (const cusched::UserError&) {
  } catch (const std::exception& e) {
    bug("the proposal stream threw something other than a structured error", e.what());
  }
  return 0;
}
