// The JSON Schema of a schedule and the primitive reference, both from the registry.
#include <sstream>

#include "dsl/schedule.h"

namespace cusched {

static nlohmann::json arg_schema(const ArgSpec& a) {
  nlohmann::json s;
  switch (a.type) {
    case ArgType::Int:
      s = {{"type", "integer"}};
      break;
    case ArgType::Name:
      s = {{"type", "string"}, {"minLength", 1}};
      break;
    case ArgType::NameList:
      s = {{"type", "array"}, {"items", {{"type", "string"}, {"minLength", 1}}}, {"minItems", 1}};
      break;
    case ArgType::IntList:
      s = {{"type", "array"}, {"items", {{"type", "integer"}}}, {"minItems", 1}};
      break;
    case ArgType::Enum:
      s = {{"type", "string"}, {"enum", a.choices}};
      break;
    case ArgType::Bool:
      s = {{"type", "boolean"}};
      break;
  }
  s["description"] = a.doc;
  return s;
}

nlohmann::json schedule_json_schema() {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& p : primitives()) {
    nlohmann::json props = {{"op", {{"type", "string"}, {"const", p.name}}}};
    nlohmann::json required = {"op"};
    std::map<std::string, nlohmann::json> groups;  // one_of group -> one alternative per argument
    for (const auto& a : p.args) {
      props[a.name] = arg_schema(a);
      if (a.required) required.push_back(a.name);
      if (!a.one_of.empty()) groups[a.one_of].push_back({{"required", {a.name}}});
    }
    nlohmann::json variant = {{"type", "object"},    {"title", p.name},      {"description", p.summary},
                              {"properties", props}, {"required", required}, {"additionalProperties", false}};
    if (groups.size() == 1) variant["oneOf"] = groups.begin()->second;
    for (const auto& [group, alternatives] : groups)
      if (groups.size() > 1) variant["allOf"].push_back({{"oneOf", alternatives}});
    variants.push_back(variant);
  }
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"title", "cusched schedule"},
          {"description", "An ordered list of schedule steps; each step is one primitive with its arguments."},
          {"type", "array"},
          {"items", {{"anyOf", variants}}}};
}

static const char* type_name(const ArgSpec& a) {
  switch (a.type) {
    case ArgType::Int:
      return "integer";
    case ArgType::Name:
      return "name";
    case ArgType::NameList:
      return "list of names";
    case ArgType::IntList:
      return "list of integers";
    case ArgType::Enum:
      return "choice";
    case ArgType::Bool:
      return "boolean";
  }
  return "?";
}

std::string primitive_reference_markdown() {
  std::ostringstream os;
  os << "# Schedule primitives\n\n"
     << "<!-- Generated from the primitive registry by `cusched primitives`; do not edit. -->\n\n"
     << "A schedule is a JSON array of steps, each `{\"op\": <primitive>, ...arguments}`, applied in order. "
     << "`cusched schema` prints the JSON Schema; `cusched validate` checks a schedule. The text form writes one "
     << "step per line as `op key=value ...` (lists comma-separated).\n\n";
  for (const auto& p : primitives()) os << "- [`" << p.name << "`](#" << p.name << ")\n";
  for (const auto& p : primitives()) {
    os << "\n## " << p.name << "\n\n"
       << p.summary << "\n\n| argument | type | required | default | meaning |\n|---|---|---|---|---|\n";
    for (const auto& a : p.args) {
      std::string type = type_name(a);
      if (a.type == ArgType::Enum) {
        type += ": ";
        for (size_t i = 0; i < a.choices.size(); ++i) type += (i ? ", " : "") + std::string("`") + a.choices[i] + "`";
      }
      std::string required = a.required ? "yes" : "no";
      if (!a.one_of.empty()) {
        required = "one of";
        for (const auto& b : p.args)
          if (b.one_of == a.one_of) required += (required == "one of" ? " `" : ", `") + b.name + "`";
      }
      os << "| `" << a.name << "` | " << type << " | " << required << " | "
         << (a.default_value.is_null() ? "" : "`" + a.default_value.dump() + "`") << " | " << a.doc << " |\n";
    }
    os << "\nBefore:\n\n```\n"
       << p.before << "\n```\n\nAfter:\n\n```\n"
       << p.after << "\n```\n\nExample:\n\n```json\n"
       << p.example << "\n```\n";
  }
  return os.str();
}

}  // namespace cusched
