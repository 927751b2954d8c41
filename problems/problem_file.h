#pragma once
// Problem files: a Problem as JSON, its stages, shapes and FLOP count written in the
// expression text syntax (dsl/expr_text.h). problem_to_json and problem_from_json are
// inverses: a built-in problem written and read back has the identical pipeline.
// docs/problem-files.md is the format's reference.
#include <string>

#include <nlohmann/json.hpp>

#include "problems/problem.h"

namespace cusched {

constexpr int kProblemFileVersion = 1;

nlohmann::json problem_to_json(const Problem& p);

// `source` names the definition in errors (a file path, or a description). Errors are
// UserErrors whose message starts with the source and the JSON pointer of the bad value;
// the codes are listed in docs/problem-files.md.
Problem problem_from_json(const nlohmann::json& j, const std::string& source);

// Reads and parses a problem file (codes unreadable-problem-file and bad-json besides
// those of problem_from_json).
Problem load_problem_file(const std::string& path);
void save_problem_file(const Problem& p, const std::string& path);

}  // namespace cusched
