// Checking a JSON step against its primitive's declared arguments.
#include "dsl/error.h"
#include "dsl/input_limits.h"
#include "dsl/names.h"
#include "dsl/schedule.h"

namespace cusched {

static std::string op_list() {
  std::string s;
  for (const auto& p : primitives()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

static const char* type_word(ArgType t) {
  switch (t) {
    case ArgType::Int:
      return "an integer";
    case ArgType::Name:
      return "a non-empty string";
    case ArgType::NameList:
      return "an array of strings";
    case ArgType::IntList:
      return "an array of integers";
    case ArgType::Enum:
      return "one of the listed strings";
    case ArgType::Bool:
      return "true or false";
  }
  return "?";
}

static bool has_type(const nlohmann::json& v, const ArgSpec& a) {
  switch (a.type) {
    case ArgType::Int:
      return v.is_number_integer();
    case ArgType::Name:
      return v.is_string() && !v.get<std::string>().empty();
    case ArgType::NameList:
      if (!v.is_array()) return false;
      for (const auto& x : v)
        if (!x.is_string() || x.get<std::string>().empty()) return false;
      return true;
    case ArgType::IntList:
      if (!v.is_array()) return false;
      for (const auto& x : v)
        if (!x.is_number_integer()) return false;
      return true;
    case ArgType::Enum:
      return v.is_string();
    case ArgType::Bool:
      return v.is_boolean();
  }
  return false;
}

StepJson normalize_step(const StepJson& step) {
  if (!step.is_object())
    fail("step-not-object", "A schedule step must be a JSON object such as {\"op\": \"split\", ...}.",
         "Write each step as an object with an \"op\" field.");
  if (!step.contains("op") || !step["op"].is_string())
    fail("missing-op", "The step has no \"op\" string.", "Add \"op\" with one of: " + op_list() + ".");
  std::string op = step["op"];
  const PrimitiveDef* p = find_primitive(op);
  if (!p)
    fail("unknown-op", "There is no primitive named '" + op.substr(0, 80) + "'.", "Use one of: " + op_list() + ".");
  StepJson out = {{"op", op}};
  for (const auto& [key, value] : step.items()) {
    if (key == "op") continue;
    bool known = false;
    for (const auto& a : p->args) known |= a.name == key;
    if (!known) {
      std::string names;
      for (const auto& a : p->args) names += (names.empty() ? "" : ", ") + a.name;
      fail("unknown-argument", "Primitive '" + op + "' has no argument '" + key + "'.",
           "Its arguments are: " + names + ".");
    }
  }
  for (const auto& a : p->args) {
    if (!step.contains(a.name) || step[a.name].is_null()) {
      if (a.required)
        fail("missing-argument", "Primitive '" + op + "' needs the argument '" + a.name + "': " + a.doc,
             "Add \"" + a.name + "\": " + type_word(a.type) + ".");
      if (a.one_of.empty()) out[a.name] = a.default_value;  // an alternative not given stays absent
      continue;
    }
    const auto& v = step[a.name];
    if (!has_type(v, a))
      fail("mistyped-argument",
           "Argument '" + a.name + "' of '" + op + "' must be " + type_word(a.type) + ", not " + v.dump() + ".",
           "Pass " + std::string(type_word(a.type)) + " for '" + a.name + "'.");
    if (a.type == ArgType::Int &&
        (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(kMaxStepInteger)
                                : (v.get<int64_t>() > kMaxStepInteger || v.get<int64_t>() < -kMaxStepInteger)))
      fail("argument-out-of-range",
           "Argument '" + a.name + "' of '" + op + "' is " + v.dump() + "; integer arguments lie between -" +
               std::to_string(kMaxStepInteger) + " and " + std::to_string(kMaxStepInteger) + ".",
           "Pass a value of the size the problem's extents allow.");
    if (a.type == ArgType::Name) require_usable_name(v.get<std::string>(), "argument '" + a.name + "' of '" + op + "'");
    if (a.type == ArgType::NameList)
      for (const auto& x : v)
        require_usable_name(x.get<std::string>(), "an entry of argument '" + a.name + "' of '" + op + "'");
    if (a.type == ArgType::Enum) {
      bool ok = false;
      std::string choices;
      for (const auto& c : a.choices) {
        ok |= c == v.get<std::string>();
        choices += (choices.empty() ? "" : ", ") + c;
      }
      if (!ok)
        fail("bad-choice", "Argument '" + a.name + "' of '" + op + "' is " + v.dump() + ", which is not allowed.",
             "Use one of: " + choices + ".");
    }
    out[a.name] = v;
  }
  std::map<std::string, std::vector<std::string>> groups, given;
  for (const auto& a : p->args)
    if (!a.one_of.empty()) {
      groups[a.one_of].push_back(a.name);
      if (out.contains(a.name)) given[a.one_of].push_back(a.name);
    }
  for (const auto& [group, names] : groups) {
    std::string alternatives;
    for (size_t i = 0; i < names.size(); ++i)
      alternatives += (i == 0 ? "'" : i + 1 == names.size() ? "' or '" : "', '") + names[i];
    alternatives += "'";
    if (given[group].empty())
      fail("missing-argument", "Primitive '" + op + "' needs one of the arguments " + alternatives + ".",
           "Add exactly one of " + alternatives + ".");
    if (given[group].size() > 1)
      fail("conflicting-arguments",
           "Primitive '" + op + "' takes only one of the arguments " + alternatives + ", and the step gives " +
               std::to_string(given[group].size()) + ".",
           "Keep exactly one of " + alternatives + ".");
  }
  return out;
}

}  // namespace cusched
