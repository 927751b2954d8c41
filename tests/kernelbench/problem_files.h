#pragma once
// The KernelBench problem files (problems/kernelbench/**), as paths relative to that
// folder ("level1/19_ReLU.json"), sorted.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace cusched::kernelbench_tests {

inline std::filesystem::path problem_root() {
  return std::filesystem::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench";
}

inline std::vector<std::string> problem_files() {
  namespace fs = std::filesystem;
  const fs::path root = problem_root();
  std::vector<std::string> out;
  if (fs::is_directory(root))
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".json") out.push_back(fs::relative(e.path(), root).string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cusched::kernelbench_tests
