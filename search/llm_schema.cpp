#include "search/llm_schema.h"

#include <algorithm>
#include <set>

namespace cusched::search {
namespace {

using nlohmann::json;

// Keywords strict mode accepts; everything else is dropped.
const std::set<std::string>& kept_keywords() {
  static const std::set<std::string> k = {"type",        "properties", "required", "additionalProperties",
                                          "items",       "anyOf",      "enum",     "const",
                                          "description", "minimum",    "maximum",  "minItems",
                                          "maxItems",    "$defs",      "$ref"};
  return k;
}

json nullable(json s) {
  if (s.contains("anyOf")) {
    bool has_null = false;
    for (const auto& o : s["anyOf"]) has_null = has_null || o.value("type", json()) == "null";
    if (!has_null) s["anyOf"].push_back({{"type", "null"}});
    return s;
  }
  if (s.contains("type")) {
    json t = s["type"];
    if (t.is_string() && t != "null") s["type"] = json::array({t, "null"});
    if (t.is_array() && std::find(t.begin(), t.end(), "null") == t.end()) s["type"].push_back("null");
  }
  if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), nullptr) == s["enum"].end())
    s["enum"].push_back(nullptr);
  if (s.contains("const")) {  // a nullable constant is an enum of it and null
    s["enum"] = json::array({s["const"], nullptr});
    s.erase("const");
  }
  return s;
}

json strict(const json& schema) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [k, v] : schema.items())
    if (kept_keywords().count(k)) out[k] = v;
  if (out.contains("items")) out["items"] = strict(out["items"]);
  if (out.contains("anyOf"))
    for (auto& o : out["anyOf"]) o = strict(o);
  if (out.contains("$defs"))
    for (auto& [name, d] : out["$defs"].items()) d = strict(d);
  if (out.contains("properties")) {
    std::set<std::string> required;
    for (const auto& r : schema.value("required", json::array())) required.insert(r.get<std::string>());
    json all = json::array();
    for (auto& [name, prop] : out["properties"].items()) {
      prop = strict(prop);
      if (!required.count(name)) prop = nullable(prop);
      all.push_back(name);
    }
    out["required"] = all;
    out["additionalProperties"] = false;
    if (!out.contains("type")) out["type"] = "object";
  }
  return out;
}

std::string violation(const json& s, const std::string& where, int depth) {
  if (!s.is_object()) return {};
  if (depth > 10) return where + " nests deeper than 10 levels";
  for (const auto& [k, v] : s.items())
    if (!kept_keywords().count(k)) return where + " uses the keyword '" + k + "'";
  bool is_object = s.value("type", json()) == "object" ||
                   (s.contains("type") && s["type"].is_array() &&
                    std::find(s["type"].begin(), s["type"].end(), "object") != s["type"].end());
  if (is_object || s.contains("properties")) {
    if (s.value("additionalProperties", json(true)) != false) return where + " allows additional properties";
    json props = s.value("properties", json::object());
    json required = s.value("required", json::array());
    for (const auto& [name, prop] : props.items()) {
      if (std::find(required.begin(), required.end(), name) == required.end())
        return where + " does not require its property '" + name + "'";
      if (auto v = violation(prop, where + "." + name, depth + 1); !v.empty()) return v;
    }
  }
  if (s.contains("items"))
    if (auto v = violation(s["items"], where + "[]", depth + 1); !v.empty()) return v;
  if (s.contains("anyOf"))
    for (size_t i = 0; i < s["anyOf"].size(); ++i)
      if (auto v = violation(s["anyOf"][i], where + ".anyOf[" + std::to_string(i) + "]", depth + 1); !v.empty())
        return v;
  return {};
}

}  // namespace

json strict_schema(const json& schema) { return strict(schema); }

std::string strict_schema_violation(const json& schema) {
  if (schema.value("type", json()) != "object") return "the root is not an object";
  return violation(schema, "the schema", 0);
}

json ideas_reply_schema() {
  return {{"type", "object"},
          {"properties", {{"ideas", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
          {"required", {"ideas"}},
          {"additionalProperties", false}};
}

json proposals_reply_schema(const json& schedule_schema) {
  json schedule = schedule_schema.is_object() && !schedule_schema.empty()
                      ? schedule_schema
                      : json{{"type", "array"}, {"items", {{"type", "object"}}}};
  json item = {
      {"type", "object"},
      {"properties",
       {{"idea_index", {{"type", "integer"}, {"description", "The idea's number in the list, from 1"}}},
        {"based_on", {{"type", "integer"}, {"description", "The id of the candidate this schedule modifies, or null"}}},
        {"schedule", schedule}}},
      {"required", {"idea_index", "schedule"}},
      {"additionalProperties", false}};
  return strict({{"type", "object"},
                 {"properties", {{"proposals", {{"type", "array"}, {"items", item}}}}},
                 {"required", {"proposals"}},
                 {"additionalProperties", false}});
}

json drop_null_arguments(const json& step) {
  if (!step.is_object()) return step;
  json out = json::object();
  for (const auto& [k, v] : step.items())
    if (!v.is_null()) out[k] = v;
  return out;
}

}  // namespace cusched::search
