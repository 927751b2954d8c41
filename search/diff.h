#pragma once
// Line diffs (longest common subsequence) for showing how a candidate's
// schedule and source differ from its parent's.
#include <string>
#include <vector>

namespace cusched::search {

struct DiffLine {
  enum class Kind { same, added, removed };
  Kind kind = Kind::same;
  std::string text;
  int old_line = 0;  // 1-based line in the old text, 0 for added lines
  int new_line = 0;  // 1-based line in the new text, 0 for removed lines
};

std::vector<std::string> split_lines(const std::string& text);

// The edit script turning `before` into `after`: every line of both, in order,
// marked same, removed or added. Removals come before additions at each change.
std::vector<DiffLine> diff_lines(const std::vector<std::string>& before, const std::vector<std::string>& after);

// "-", "+" and " " prefixed lines, the whole files (no hunks).
std::string format_diff(const std::vector<DiffLine>& diff);

}  // namespace cusched::search
