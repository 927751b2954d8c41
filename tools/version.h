#pragma once
// The version of cusched, printed by `cusched --version` and sent as the MCP server's version.
#include <nlohmann/json.hpp>

namespace cusched::tools {

const char* cusched_version();

// The version with its parts: the search's and the runtime's version strings.
nlohmann::json version_json();

}  // namespace cusched::tools
