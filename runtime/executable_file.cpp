#include "runtime/executable_file.h"

#include <filesystem>

#include <unistd.h>

namespace cusched::runtime {

bool is_executable_file(const std::string& path) {
  std::error_code ec;
  return !path.empty() && access(path.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(path, ec);
}

}  // namespace cusched::runtime
