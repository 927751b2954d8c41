#pragma once
// JSON Schemas for the LLM's structured replies in the form OpenAI's strict mode
// accepts: every object lists all its properties as required and allows no others,
// optional properties are nullable instead (a null means "not given"), and the keywords
// strict mode refuses (oneOf, allOf, minLength, $schema, ...) are left out; the legality
// check of each schedule enforces what they expressed.
#include <string>

#include <nlohmann/json.hpp>

namespace cusched::search {

// `schema` rewritten for strict mode.
nlohmann::json strict_schema(const nlohmann::json& schema);

// The first way `schema` breaks strict mode's rules, empty when it keeps them all.
std::string strict_schema_violation(const nlohmann::json& schema);

// The reply schema of the ideas call: {"ideas": [string]}.
nlohmann::json ideas_reply_schema();

// The reply schema of the implementations call: {"proposals": [{idea_index, based_on
// (a candidate id or null), schedule}]}, the schedule schema made strict.
nlohmann::json proposals_reply_schema(const nlohmann::json& schedule_schema);

// A step from a strict-mode reply: its null-valued arguments removed (null stands for an
// argument left out).
nlohmann::json drop_null_arguments(const nlohmann::json& step);

}  // namespace cusched::search
