#pragma once
// A position in the audited source as shown to the user.
#include <string>

namespace cusched::audit {

struct SourceLocation {
  std::string file;
  int line = 0, column = 0;
};

}  // namespace cusched::audit
