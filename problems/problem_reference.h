#pragma once
// The problem reference (docs/problems.md), generated from the problem set.
#include <string>

namespace cusched {

// Every problem: semantics, notes, sizes, buffers and their distributions, tolerance,
// floor bytes and FLOPs at the bench size, and its kernel contract.
std::string problem_reference_markdown();

}  // namespace cusched
