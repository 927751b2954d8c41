// The JSON Schema of a schedule: every primitive appears, every argument is
// described, and the problems' schedules validate against it. The checker below
// implements the subset of JSON Schema the schema uses.
#include <set>

#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/problem.h"

namespace cusched {
namespace {

using nlohmann::json;

bool has_json_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  ADD_FAILURE() << "the checker does not know the type " << type;
  return false;
}

// Returns "" when `v` satisfies `schema`, else the first violation.
std::string violation(const json& v, const json& schema, const std::string& at = "$") {
  static const std::set<std::string> known = {"$schema",  "title",      "description",
                                              "type",     "enum",       "const",
                                              "required", "properties", "additionalProperties",
                                              "anyOf",    "oneOf",      "allOf",
                                              "items",    "minLength",  "minItems"};
  for (const auto& [key, _] : schema.items())
    if (!known.count(key)) return at + ": the checker does not support the keyword " + key;
  if (schema.contains("type") && !has_json_type(v, schema["type"]))
    return at + ": not of type " + schema["type"].dump();
  if (schema.contains("const") && v != schema["const"]) return at + ": not " + schema["const"].dump();
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found |= e == v;
    if (!found) return at + ": " + v.dump() + " is not in the enum";
  }
  if (schema.contains("minLength") && v.is_string() && v.get<std::string>().size() < schema["minLength"].get<size_t>())
    return at + ": string too short";
  if (schema.contains("minItems") && v.is_array() && v.size() < schema["minItems"].get<size_t>())
    return at + ": too few items";
  if (schema.contains("items") && v.is_array())
    for (size_t i = 0; i < v.size(); ++i) {
      std::string e = violation(v[i], schema["items"], at + "[" + std::to_string(i) + "]");
      if (!e.empty()) return e;
    }
  if (v.is_object()) {
    if (schema.contains("required"))
      for (const auto& r : schema["required"])
        if (!v.contains(r.get<std::string>())) return at + ": missing " + r.get<std::string>();
    const json props = schema.value("properties", json::object());
    for (const auto& [key, value] : v.items()) {
      if (props.contains(key)) {
        std::string e = violation(value, props[key], at + "." + key);
        if (!e.empty()) return e;
      } else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false) {
        return at + ": unexpected property " + key;
      }
    }
  }
  if (schema.contains("anyOf")) {
    for (const auto& alt : schema["anyOf"])
      if (violation(v, alt, at).empty()) return "";
    return at + ": matches none of the alternatives";
  }
  if (schema.contains("oneOf")) {
    int matches = 0;
    for (const auto& alt : schema["oneOf"]) matches += violation(v, alt, at).empty();
    if (matches != 1) return at + ": matches " + std::to_string(matches) + " of the exclusive alternatives";
  }
  if (schema.contains("allOf"))
    for (const auto& part : schema["allOf"]) {
      std::string e = violation(v, part, at);
      if (!e.empty()) return e;
    }
  return "";
}

TEST(ScheduleSchema, EveryPrimitiveIsAnAlternative) {
  json schema = schedule_json_schema();
  EXPECT_EQ(schema["type"], "array");
  const json& alts = schema["items"]["anyOf"];
  ASSERT_EQ(alts.size(), primitives().size());
  std::set<std::string> ops;
  for (const auto& alt : alts) ops.insert(alt["properties"]["op"]["const"].get<std::string>());
  for (const char* op : {"split", "tile", "reorder", "fuse", "reverse", "bind", "unroll", "vectorize", "compute_at",
                         "compute_inline", "compute_root", "cache_read", "cache_write", "rfactor",
                         "cross_thread_reduce", "pipeline", "tensor_core", "precision", "launch_bounds"})
    EXPECT_TRUE(ops.count(op)) << op << " is missing from the schema";
}

TEST(ScheduleSchema, ArgumentsMatchTheRegistry) {
  json schema = schedule_json_schema();
  for (const auto& p : primitives()) {
    const json* alt = nullptr;
    for (const auto& a : schema["items"]["anyOf"])
      if (a["title"] == p.name) alt = &a;
    ASSERT_NE(alt, nullptr) << p.name;
    EXPECT_EQ((*alt)["additionalProperties"], false);
    EXPECT_FALSE((*alt)["description"].get<std::string>().empty());
    for (const auto& a : p.args) {
      ASSERT_TRUE((*alt)["properties"].contains(a.name)) << p.name << "." << a.name;
      bool required = false;
      for (const auto& r : (*alt)["required"]) required |= r == a.name;
      EXPECT_EQ(required, a.required) << p.name << "." << a.name;
      if (a.type == ArgType::Enum) {
        EXPECT_EQ((*alt)["properties"][a.name]["enum"], json(a.choices)) << p.name << "." << a.name;
      }
    }
  }
}

TEST(ScheduleSchema, ProblemSchedulesValidate) {
  json schema = schedule_json_schema();
  for (const auto& p : all_problems()) {
    for (const json* steps : {&p.baseline_schedule, &p.best_schedule}) {
      EXPECT_EQ(violation(*steps, schema), "") << p.name;
      // Their normalised form too.
      ValidationResult r = validate_schedule(p.context("small"), *steps);
      ASSERT_TRUE(r.ok) << p.name << ": " << r.error.to_string();
      EXPECT_EQ(violation(r.steps, schema), "") << p.name;
    }
  }
}

TEST(ScheduleSchema, RejectsMalformedSteps) {
  json schema = schedule_json_schema();
  EXPECT_NE(violation(json::parse(R"({"op": "split"})"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "parallel", "loop": "i"}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "split", "loop": "i"}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "split", "loop": "i", "factor": "4"}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "split", "loop": "i", "factor": 4, "ways": 2}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "bind", "loop": "i", "axis": "warp"}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "bind", "loop": "", "axis": "blockIdx.x"}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "reorder", "loops": []}])"), schema), "");
  EXPECT_NE(violation(json::parse(R"([{"op": "split", "loop": "i", "factor": 4, "parts": 2}])"), schema), "");
  EXPECT_EQ(violation(json::parse(R"([{"op": "split", "loop": "i", "factor": 4}])"), schema), "");
  EXPECT_EQ(violation(json::parse(R"([{"op": "split", "loop": "i", "parts": 4}])"), schema), "");
}

}  // namespace
}  // namespace cusched
