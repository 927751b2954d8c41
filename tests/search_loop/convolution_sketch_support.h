#pragma once
// Helpers of the convolution sketch tests: KernelBench problem files, the class's sketches
// checked legal at the bench size, and their verification in the interpreter.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/class_sketches.h"

namespace cusched::search {

inline Problem kernelbench(const std::string& file) {
  return load_problem_file((std::filesystem::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / file).string());
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every convolution sketch of the file is legal at its bench size; returns them.
inline std::vector<Sketch> legal_sketches(const Problem& p) {
  auto sketches = class_sketches(p, ProblemClass::convolution);
  for (const auto& s : sketches) {
    ValidationResult v = validate_schedule(p.context("bench"), s.schedule);
    EXPECT_TRUE(v.ok) << p.name << ": " << s.idea << ": " << v.error.message;
  }
  return sketches;
}

// `s` verifies in the interpreter at the small size of `p` (two input sets).
inline void expect_verifies_at_small_size(const Problem& p, const Sketch& s) {
  auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 2, 1);
  EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
}

}  // namespace cusched::search
