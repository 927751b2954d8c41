#pragma once
// The tools of the MCP server, in one table: each tool's name, title, description,
// input schema and how it runs. Most run one `cusched <command> ... --json` as a child
// process; the search tools manage background searches (tools/mcp_searches.h).
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched::tools::mcp {

class SearchProcesses;

// What one tool call produced: MCP's structuredContent (always an object) and whether it
// is a tool error (isError). The text content is the structured content printed.
struct ToolResult {
  nlohmann::json structured = nlohmann::json::object();
  bool is_error = false;
};

// What a tool can use while it runs.
struct ToolEnv {
  std::string exe;                      // the cusched executable the tools run
  std::string scratch_dir;              // where inline schedules and kernels are written
  SearchProcesses* searches = nullptr;  // background searches of this server
  const std::atomic<bool>* cancelled = nullptr;
  std::function<void(double done, const std::string& message)> progress;  // may be empty
};

struct ToolSpec {
  std::string name, title, description;
  nlohmann::json input_schema;  // a JSON Schema object with properties and required
  bool read_only = true;        // changes nothing outside the scratch folder
  std::function<ToolResult(const nlohmann::json& arguments, ToolEnv& env)> call;
};

const std::vector<ToolSpec>& tool_table();
const ToolSpec* find_tool(const std::string& name);

// The tools/list entry of a tool.
nlohmann::json tool_listing(const ToolSpec& tool);

// The arguments checked against the tool's input schema (types, required, enums, no
// unknown properties); a message naming the first problem, empty when they conform.
std::string check_arguments(const ToolSpec& tool, const nlohmann::json& arguments);

}  // namespace cusched::tools::mcp
