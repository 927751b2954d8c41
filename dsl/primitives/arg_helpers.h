#pragma once
// Argument declarations shared by several primitives.
#include "dsl/primitive.h"

namespace cusched {

inline ArgSpec stage_arg(bool required) {
  ArgSpec a;
  a.name = "stage";
  a.required = required;
  a.doc = required ? "The stage to transform."
                   : "The stage that owns the loop; needed only when several stages have a loop of that name.";
  return a;
}

inline ArgSpec name_arg(const std::string& name, const std::string& doc, bool required = true) {
  ArgSpec a;
  a.name = name;
  a.required = required;
  a.doc = doc;
  return a;
}

inline ArgSpec int_arg(const std::string& name, const std::string& doc, bool required = true,
                       nlohmann::json def = nullptr) {
  ArgSpec a;
  a.name = name;
  a.type = ArgType::Int;
  a.required = required;
  a.default_value = std::move(def);
  a.doc = doc;
  return a;
}

inline ArgSpec enum_arg(const std::string& name, std::vector<std::string> choices, const std::string& doc,
                        bool required = true, nlohmann::json def = nullptr) {
  ArgSpec a;
  a.name = name;
  a.type = ArgType::Enum;
  a.choices = std::move(choices);
  a.required = required;
  a.default_value = std::move(def);
  a.doc = doc;
  return a;
}

// Fails with cluster-extent unless the loop can be bound to cluster.x (2 to 16 blocks;
// shared by bind and cross_thread_reduce kind cluster).
void require_cluster_extent(const LoopInfo& l);

// Splits `loop` of stage `s` into outer and inner loops (shared by split and tile).
void split_loop(StageSchedule& s, const std::string& loop, int64_t factor, const std::string& outer,
                const std::string& inner);

}  // namespace cusched
