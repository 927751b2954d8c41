#pragma once
// Schedule steps written in C++: a primitive's name, the stage, and named arguments with
// typed values, checked against the primitive's declaration in the registry when the
// step is built. The result is the JSON step a user would write.
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched {

// One named argument of a step. Its value is an integer (ArgType::Int), a string (a
// name, or one of an enum's choices), a list of names, or a flag (ArgType::Bool).
class StepArg {
 public:
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  StepArg(std::string name, T value) : name_(std::move(name)), value_(static_cast<int64_t>(value)) {}
  StepArg(std::string name, bool value) : name_(std::move(name)), value_(value) {}
  StepArg(std::string name, const char* value) : name_(std::move(name)), value_(std::string(value)) {}
  StepArg(std::string name, std::string value) : name_(std::move(name)), value_(std::move(value)) {}
  StepArg(std::string name, std::vector<std::string> value) : name_(std::move(name)), value_(std::move(value)) {}
  StepArg(std::string name, std::initializer_list<std::string> value)
      : name_(std::move(name)), value_(std::vector<std::string>(value)) {}

  const std::string& name() const { return name_; }
  const nlohmann::json& value() const { return value_; }

 private:
  std::string name_;
  nlohmann::json value_;
};

// The step {"op": op, "stage": stage, args...}, e.g.
//   schedule_step("split", "C", {{"loop", "i"}, {"factor", 64}, {"outer", "io"}, {"inner", "ii"}}).
// An empty `stage` leaves "stage" out (for primitives whose stage is optional). Arguments
// not given stay absent, so the primitive derives their defaults when the step is applied.
// Throws UserError with the registry's code (unknown-op, unknown-argument,
// mistyped-argument, bad-choice, missing-argument, conflicting-arguments) when the step
// does not match the primitive's declared arguments.
nlohmann::json schedule_step(const std::string& op, const std::string& stage, const std::vector<StepArg>& args = {});

}  // namespace cusched
