// libFuzzer target: arbitrary bytes read as a problem file (problem_from_json) and as
// the stage text of a problem with two inputs (stage_from_text). A UserError is the
// expected answer to bad input; any other exception, an abort or an ASan report is a
// bug. A problem that parses must write back to the same pipeline text, and its
// automatic baseline must be a legal schedule at each of its sizes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dsl/expr_text.h"
#include "dsl/func.h"
#include "dsl/schedule.h"
#include "dsl/var.h"
#include "problems/automatic_baseline.h"
#include "problems/problem_file.h"
#include "tests/fuzz/fuzz_failure.h"

namespace {

using nlohmann::json;

[[noreturn]] void bug(const std::string& what, const std::string& detail) {
  cusched::fuzz::bug("problem", what, detail);
}

std::string pipeline_text(const cusched::Problem& p) {
  std::string out;
  for (const auto& f : p.pipeline.stages()) out += cusched::stage_to_text(*f) + "\n";
  return out;
}

void check_problem(const json& j) {
  cusched::Problem p;
  try {
    p = cusched::problem_from_json(j, "fuzz");
  } catch (const cusched::UserError& e) {
    if (e.error().code.empty() || e.error().message.empty()) bug("an error without code or message", j.dump());
    return;
  } catch (const std::exception& e) {
    bug("problem_from_json threw something other than a structured error", e.what());
  }
  try {
    cusched::Problem again = cusched::problem_from_json(cusched::problem_to_json(p), "fuzz");
    if (pipeline_text(again) != pipeline_text(p)) bug("the written problem reads back differently", pipeline_text(p));
    for (const auto& [size, bindings] : p.sizes) {
      (void)bindings;
      cusched::ValidationResult r =
          cusched::validate_schedule(p.context(size), cusched::automatic_baseline(p.pipeline));
      if (!r.ok && r.error.code != "input-too-large")
        bug("the automatic baseline is not legal at size " + size + ": " + r.error.to_string(), pipeline_text(p));
    }
  } catch (const cusched::UserError& e) {
    bug("a parsed problem failed to write, read back or get a baseline: " + e.error().to_string(), j.dump());
  } catch (const std::exception& e) {
    bug("a parsed problem threw something other than a structured error", e.what());
  }
}

void check_stage_text(const std::string& text) {
  static const cusched::ExprScope scope = [] {
    cusched::ExprScope s;
    s.sizes = {"R", "D"};
    cusched::Size r("R"), d("D");
    s.tensors["X"] = cusched::Tensor("X", cusched::DType::f32, {r, d}).ptr();
    s.tensors["I"] = cusched::Tensor("I", cusched::DType::i32, {r, d}).ptr();
    return s;
  }();
  cusched::fuzz::only_structured_errors("problem", "stage_from_text", [&] { cusched::stage_from_text(text, scope); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  json j = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) check_problem(j);
  check_stage_text(bytes);
  return 0;
}
