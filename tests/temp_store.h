#pragma once
// A path in the temporary folder for a test's search store, named after the suite
// (`suite`), the case (`name`) and the process, with any store of that name (and its
// SQLite -wal and -shm files) removed.
#include <filesystem>
#include <string>

#include <unistd.h>

namespace cusched::test {

inline std::string fresh_store_path(const std::string& suite, const std::string& name) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("cusched_" + suite + "_" + name + "_" + std::to_string(getpid()) + ".db");
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + ext);
  return p.string();
}

}  // namespace cusched::test
