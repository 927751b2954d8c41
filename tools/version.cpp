#include "tools/version.h"

namespace cusched::search {
const char* search_version();
}
namespace cusched::runtime {
const char* runtime_version();
}

namespace cusched::tools {

const char* cusched_version() { return "0.1.0"; }

bool audit_in_build() {
#ifdef CUSCHED_HAVE_AUDIT
  return true;
#else
  return false;
#endif
}

nlohmann::json version_json() {
  return {{"name", "cusched"},
          {"version", cusched_version()},
          {"search", search::search_version()},
          {"runtime", runtime::runtime_version()},
          {"audit", audit_in_build()}};
}

}  // namespace cusched::tools
