#include "dsl/error.h"

#include "dsl/input_limits.h"

namespace cusched {

nlohmann::json Error::to_json() const {
  nlohmann::json j;
  if (step >= 0) j["step"] = step;
  // Messages quote user input, which need not be valid UTF-8; JSON text must be.
  if (!op.empty()) j["op"] = valid_utf8(op);
  j["code"] = code;
  j["message"] = valid_utf8(message);
  if (!hint.empty()) j["hint"] = valid_utf8(hint);
  if (!phase.empty()) j["phase"] = phase;
  return j;
}

Error Error::from_json(const nlohmann::json& j) {
  Error e;
  e.step = j.value("step", -1);
  e.op = j.value("op", "");
  e.code = j.value("code", "");
  e.message = j.value("message", "");
  e.hint = j.value("hint", "");
  e.phase = j.value("phase", "");
  return e;
}

std::string Error::to_string() const {
  std::string s;
  if (step >= 0)
    s += "step " + std::to_string(step) + (op.empty() ? "" : " (" + op + ")") + ": ";
  else if (!op.empty())
    s += op + ": ";
  s += message;
  if (!hint.empty()) s += " Hint: " + hint;
  return s;
}

void fail(std::string code, std::string message, std::string hint) {
  Error e;
  e.code = std::move(code);
  e.message = std::move(message);
  e.hint = std::move(hint);
  throw UserError(std::move(e));
}

}  // namespace cusched
