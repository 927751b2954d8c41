#include "tools/version.h"

namespace cusched::search {
const char* search_version();
}
namespace cusched::runtime {
const char* runtime_version();
}

namespace cusched::tools {

const char* cusched_version() { return "0.1.0"; }

nlohmann::json version_json() {
  return {{"name", "cusched"},
          {"version", cusched_version()},
          {"search", search::search_version()},
          {"runtime", runtime::runtime_version()}};
}

}  // namespace cusched::tools
