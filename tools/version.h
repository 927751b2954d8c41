#pragma once
// The version of cusched, printed by `cusched --version` and sent as the MCP server's version.
#include <nlohmann/json.hpp>

namespace cusched::tools {

const char* cusched_version();

// Whether this build has the Clang 19 audit stage (CUSCHED_WITH_AUDIT).
bool audit_in_build();

// The version with its parts: the search's and the runtime's version strings, and
// whether the audit stage is built in.
nlohmann::json version_json();

}  // namespace cusched::tools
