#pragma once
// Structured errors: every user-facing failure is one of these values, with a
// full-sentence message and a hint that names the fix.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace cusched {

struct Error {
  int step = -1;        // index of the schedule step, -1 when not about a step
  std::string op;       // the primitive or command the error is about
  std::string code;     // stable kebab-case identifier, e.g. "unknown-loop"
  std::string message;  // full sentence saying what is wrong
  std::string hint;     // full sentence saying how to fix it
  // Which phase of the legality refused: "schedule" (a step, or the whole-schedule rules
  // of dsl/schedule_legality.h) or "lowering" (a rule that needs the lowered program);
  // empty for errors outside a schedule's legality.
  std::string phase;

  nlohmann::json to_json() const;
  static Error from_json(const nlohmann::json& j);  // the inverse of to_json
  std::string to_string() const;                    // one line: "step 3 (bind): message Hint: hint"
};

// Thrown inside the library; caught at API boundaries and turned into Error values.
class UserError : public std::runtime_error {
 public:
  explicit UserError(Error e) : std::runtime_error(e.message), error_(std::move(e)) {}
  const Error& error() const { return error_; }
  Error& error() { return error_; }

 private:
  Error error_;
};

// Why a step cannot apply, as the parts of an Error: a rule's answer before a step or
// the whole-schedule legality turns it into one.
struct Refusal {
  std::string code, message, hint;
};

[[noreturn]] void fail(std::string code, std::string message, std::string hint = "");

}  // namespace cusched
