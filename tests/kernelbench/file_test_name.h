#pragma once
// The gtest name of a parameter that is a KernelBench problem file's path relative to
// problems/kernelbench: its level folder and file stem, other characters as '_'
// ("level1/19_ReLU.json" -> "level1_19_ReLU").
#include <cctype>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace cusched::kernelbench_tests {

inline std::string file_test_name(const ::testing::TestParamInfo<std::string>& info) {
  const std::filesystem::path p(info.param);
  std::string s = p.parent_path().string() + "_" + p.stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace cusched::kernelbench_tests
