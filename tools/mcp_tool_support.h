#pragma once
// What the MCP tools share: running one cusched command as a child and turning its
// --json output into a tool result, files for inline arguments, and the error shape.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/mcp_tools.h"

namespace cusched::tools::mcp {

// A tool error in the CLI's own error shape: {"ok": false, "error": {code, message, hint}}.
ToolResult tool_error(const std::string& code, const std::string& message, const std::string& hint);

// Runs `cusched args...` (args without the executable) with `timeout_s`, reporting
// progress through env.progress. Its stdout, parsed as JSON, is the structured result
// (an object as it is; any other value as {"result": value}); a non-zero exit is a tool
// error that also carries the exit code and the end of stderr.
ToolResult run_cli(ToolEnv& env, const std::vector<std::string>& args, double timeout_s);

// True when this cusched has the subcommand `name`.
bool has_command(const std::string& name);

// A tool error saying this cusched lacks the subcommand `name`.
ToolResult missing_command(const std::string& name);

// Writes `text` to a fresh file in env.scratch_dir (named `stem`-N.`ext`) and returns its path.
std::string scratch_file(ToolEnv& env, const std::string& stem, const std::string& ext, const std::string& text);

// A schedule argument as a command-line value: a JSON array (or a string holding one) is
// written to a scratch file; "baseline", "best" and paths pass as they are.
std::string schedule_argument(ToolEnv& env, const nlohmann::json& schedule);

// A problem argument: a name or a path as it is; an object (a problem file) written to a
// scratch .json file.
std::string problem_argument(ToolEnv& env, const nlohmann::json& problem);

// Appends `flag value` for each of `names` present in `arguments` (name -> --name, with
// '_' as '-'); booleans that are true append the flag alone.
void append_flags(std::vector<std::string>& argv, const nlohmann::json& arguments,
                  const std::vector<std::string>& names);

}  // namespace cusched::tools::mcp
