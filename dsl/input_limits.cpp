#include "dsl/input_limits.h"

#include <fstream>
#include <set>
#include <vector>

#include <sys/stat.h>

#include "dsl/error.h"

namespace cusched {

namespace {

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The deepest nesting of arrays and objects in `text`, outside strings; stops counting
// once past `limit`. Linear in the text, no recursion.
int nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"')
      in_string = true;
    else if (ch == '[' || ch == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return deepest;
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string plain_message(const char* what) {
  std::string m = valid_utf8(what);
  if (m.rfind("[json.exception.", 0) == 0) {
    size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  if (!m.empty() && m.back() == '.') m.pop_back();
  return m;
}

}  // namespace

std::string read_bounded(std::istream& in, size_t limit, const std::string& what) {
  std::string text;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    std::streamsize n = in.gcount();
    if (n <= 0) break;
    if (text.size() + static_cast<size_t>(n) > limit)
      fail("input-too-large", what + " is larger than " + mib(limit) + ", the most cusched reads.",
           "Give a smaller input; a schedule or proposal is a few kilobytes.");
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

std::string read_file_bounded(const std::string& path, size_t limit, const std::string& what) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    fail("unreadable-file", what + " '" + valid_utf8(path) + "' does not exist or cannot be read.", "Check the path.");
  if (!S_ISREG(st.st_mode))
    fail("not-a-file", what + " '" + valid_utf8(path) + "' is not a regular file.",
         "Pass the path of a file, not a directory or device.");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("unreadable-file", what + " '" + valid_utf8(path) + "' cannot be opened.",
         "Check the path and its permissions.");
  return read_bounded(in, limit, what + " '" + valid_utf8(path) + "'");
}

nlohmann::json parse_json_input(std::string_view text, const std::string& what, const std::string& hint) {
  if (text.size() > kMaxJsonBytes)
    fail("json-too-large",
         what + " is " + std::to_string(text.size()) + " bytes of JSON; at most " + mib(kMaxJsonBytes) + " are read.",
         "Give a smaller document.");
  if (nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth)
    fail("json-too-deep",
         what + " nests arrays and objects more than " + std::to_string(kMaxJsonDepth) + " levels deep.",
         "Flatten the document: a schedule is an array of flat step objects.");
  std::vector<std::set<std::string>> keys;  // the keys of each open object
  auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start)
      keys.emplace_back();
    else if (event == E::object_end && !keys.empty())
      keys.pop_back();
    else if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      fail("duplicate-json-key",
           what + " gives the key '" + valid_utf8(parsed.get<std::string>()) + "' twice in one object.",
           "Give each key once per object; which one counts would otherwise be a guess.");
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::out_of_range& e) {
    fail("json-number-out-of-range",
         what + " holds a number beyond the range of a double: " + plain_message(e.what()) + ".",
         "Write numbers that fit in a 64-bit float (or integers below 2^63).");
  } catch (const nlohmann::json::exception& e) {
    fail("bad-json", what + " is not valid JSON: " + plain_message(e.what()) + ".", hint);
  }
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok && len == 2) ok = c >= 0xc2;  // no overlong two-byte forms
    if (ok && len == 3) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);  // no overlong forms, no surrogates
    }
    if (ok && len == 4) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = c <= 0xf4 && !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

}  // namespace cusched
