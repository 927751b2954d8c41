#include "search/diff.h"

#include <algorithm>
#include <cstdint>

namespace cusched::search {

namespace {
// Above this many cells the middle section is shown as removed-then-added
// instead of computing an LCS table.
constexpr size_t kMaxTableCells = size_t{1} << 25;
}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

std::vector<DiffLine> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<DiffLine> out;
  // Common prefix and suffix need no table.
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  for (size_t i = 0; i < prefix; ++i)
    out.push_back({DiffLine::Kind::same, a[i], static_cast<int>(i + 1), static_cast<int>(i + 1)});

  const size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  auto removed = [&](size_t i) {
    out.push_back({DiffLine::Kind::removed, a[prefix + i], static_cast<int>(prefix + i + 1), 0});
  };
  auto added = [&](size_t j) {
    out.push_back({DiffLine::Kind::added, b[prefix + j], 0, static_cast<int>(prefix + j + 1)});
  };

  if (n * m > kMaxTableCells || n == 0 || m == 0) {
    for (size_t i = 0; i < n; ++i) removed(i);
    for (size_t j = 0; j < m; ++j) added(j);
  } else {
    // lcs[i][j]: length of the LCS of a-middle[i..] and b-middle[j..].
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        out.push_back(
            {DiffLine::Kind::same, a[prefix + i], static_cast<int>(prefix + i + 1), static_cast<int>(prefix + j + 1)});
        ++i, ++j;
      } else if (j == m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
        removed(i++);
      } else {
        added(j++);
      }
    }
  }
  for (size_t k = 0; k < suffix; ++k) {
    size_t i = a.size() - suffix + k, j = b.size() - suffix + k;
    out.push_back({DiffLine::Kind::same, a[i], static_cast<int>(i + 1), static_cast<int>(j + 1)});
  }
  return out;
}

std::string format_diff(const std::vector<DiffLine>& diff) {
  std::string s;
  for (const auto& d : diff) {
    s += d.kind == DiffLine::Kind::same ? ' ' : d.kind == DiffLine::Kind::added ? '+' : '-';
    s += d.text;
    s += '\n';
  }
  return s;
}

}  // namespace cusched::search
