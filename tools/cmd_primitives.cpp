// `cusched primitives`: the primitive reference (docs/primitives.md is its output).
#include <iostream>

#include "dsl/primitive.h"
#include "dsl/schedule.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

std::string arg_type_name(ArgType t) {
  switch (t) {
    case ArgType::Int:
      return "int";
    case ArgType::Name:
      return "name";
    case ArgType::NameList:
      return "name list";
    case ArgType::IntList:
      return "int list";
    case ArgType::Enum:
      return "enum";
    case ArgType::Bool:
      return "bool";
  }
  return "name";
}

// The registry as JSON: each primitive's summary, arguments, before/after and example.
nlohmann::json primitives_json() {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& p : primitives()) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& a : p.args) {
      nlohmann::json j = {{"name", a.name}, {"type", arg_type_name(a.type)}, {"required", a.required}, {"doc", a.doc}};
      if (!a.default_value.is_null()) j["default"] = a.default_value;
      if (!a.choices.empty()) j["choices"] = a.choices;
      if (!a.one_of.empty()) j["one_of_group"] = a.one_of;
      args.push_back(j);
    }
    nlohmann::json example = nlohmann::json::parse(p.example, nullptr, false);
    all.push_back({{"op", p.name},
                   {"summary", p.summary},
                   {"args", args},
                   {"before", p.before},
                   {"after", p.after},
                   {"example", example.is_discarded() ? nlohmann::json(p.example) : example}});
  }
  return {{"primitives", all}};
}

CommandRegistration primitives_command{
    {"primitives", "Print the schedule primitive reference as Markdown", [](CLI::App& sub) -> std::function<int()> {
       auto json = std::make_shared<bool>(false);
       sub.add_flag("--json", *json, "Print the primitives as JSON (arguments, before/after, example)");
       return [json] {
         if (*json)
           std::cout << primitives_json().dump(2) << "\n";
         else
           std::cout << primitive_reference_markdown();
         return kExitOk;
       };
     }}};

}  // namespace
}  // namespace cusched::tools
