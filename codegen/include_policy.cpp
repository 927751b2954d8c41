#include "codegen/include_policy.h"

#include <vector>

#include "dsl/input_limits.h"

namespace cusched {

namespace {

struct LogicalLine {
  int line = 0;      // 1-based number of its first physical line
  std::string text;  // comments replaced by a space, continuations joined
};

// The source as logical lines, in one pass: block and line comments become a space,
// backslash-newline joins lines, string and character literals are kept as they are.
std::vector<LogicalLine> logical_lines(const std::string& s) {
  std::vector<LogicalLine> out;
  LogicalLine cur{1, ""};
  int line = 1;
  enum { Code, LineComment, BlockComment, String, Char } mode = Code;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {  // a continuation, in any mode
      ++i;
      ++line;
      continue;
    }
    if (c == '\n') {
      ++line;
      if (mode == BlockComment) continue;
      out.push_back(cur);
      cur = LogicalLine{line, ""};
      if (mode != BlockComment) mode = Code;
      continue;
    }
    switch (mode) {
      case Code:
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/')
          mode = LineComment, ++i;
        else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*')
          mode = BlockComment, ++i, cur.text += ' ';
        else {
          if (c == '"')
            mode = String;
          else if (c == '\'')
            mode = Char;
          cur.text += c;
        }
        break;
      case LineComment:
        break;
      case BlockComment:
        if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') mode = Code, ++i;
        break;
      case String:
      case Char:
        cur.text += c;
        if (c == '\\' && i + 1 < s.size())
          cur.text += s[++i];
        else if (c == (mode == String ? '"' : '\''))
          mode = Code;
        break;
    }
  }
  out.push_back(cur);
  return out;
}

size_t skip_space(const std::string& t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\f' || t[i] == '\v')) ++i;
  return i;
}

bool safe_system_name(const std::string& name) {
  if (name.empty() || name[0] == '/' || name.find("..") != std::string::npos) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '/' || c == '-' || c == '+'))
      return false;
  return true;
}

Error refused(int line, const std::string& what, const std::string& hint) {
  return Error{-1, "", "include-outside-library", "Line " + std::to_string(line) + " " + what + ".", hint, ""};
}

}  // namespace

std::optional<Error> include_error(const std::string& source, const std::set<std::string>& library) {
  std::string names;
  for (const auto& n : library) names += (names.empty() ? "" : ", ") + n;
  const std::string hint = "Include only the device library in quotes (" + names +
                           ") and system or CUDA headers in angle brackets, e.g. #include <cuda_fp16.h>.";
  for (const auto& l : logical_lines(source)) {
    const std::string& t = l.text;
    size_t i = skip_space(t, 0);
    if (i >= t.size() || t[i] != '#') continue;
    i = skip_space(t, i + 1);
    size_t d = i;
    while (i < t.size() && ((t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) ++i;
    const std::string directive = t.substr(d, i - d);
    if (directive == "embed") return refused(l.line, "embeds a file (#embed)", hint);
    if (directive != "include" && directive != "include_next" && directive != "import") continue;
    i = skip_space(t, i);
    if (i >= t.size() || (t[i] != '"' && t[i] != '<'))
      return refused(l.line, "includes a computed name (#" + directive + " followed by a macro)", hint);
    const char close = t[i] == '"' ? '"' : '>';
    size_t end = t.find(close, i + 1);
    if (end == std::string::npos)
      return refused(l.line, "has an #" + directive + " without its closing " + std::string(1, close), hint);
    const std::string name = t.substr(i + 1, end - i - 1);
    const std::string shown = valid_utf8(name.substr(0, 120));
    if (close == '"' && !library.count(name))
      return refused(l.line, "includes \"" + shown + "\", which is not a header of the device library", hint);
    if (close == '>' && !safe_system_name(name))
      return refused(
          l.line, "includes <" + shown + ">, an absolute path or one that climbs out of the include directories", hint);
  }
  return std::nullopt;
}

}  // namespace cusched
