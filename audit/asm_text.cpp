// PTX inline-asm template parsing.
#include "audit/asm_text.h"

#include <cctype>
#include <regex>

namespace cusched::audit {

namespace {
std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (std::isspace(static_cast<unsigned char>(s[b])) || s[b] == '{' || s[b] == '}')) ++b;
  while (e > b && (std::isspace(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == '{' || s[e - 1] == '}')) --e;
  return s.substr(b, e - b);
}

std::string strip_comments(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
      out += '\n';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 1;
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

bool contains_opcode(const std::string& text, const std::regex& opcode) {
  for (const auto& ins : asm_instructions(text))
    if (std::regex_search(asm_opcode(ins), opcode)) return true;
  return false;
}
}  // namespace

std::vector<std::string> asm_instructions(const std::string& asm_template) {
  std::vector<std::string> out;
  std::string text = strip_comments(asm_template);
  std::string piece;
  auto flush = [&] {
    std::string ins = trim(piece);
    piece.clear();
    // Labels: "LOOP:" possibly followed by an instruction.
    static const std::regex label(R"(^[A-Za-z_$][\w$]*\s*:\s*)");
    ins = trim(std::regex_replace(ins, label, ""));
    // Guard predicates: "@p", "@!p", "@%p1".
    static const std::regex predicate(R"(^@!?%?[\w$]+\s*)");
    ins = trim(std::regex_replace(ins, predicate, ""));
    if (ins.empty() || ins[0] == '.') return;  // directives such as .reg .pred p;
    out.push_back(ins);
  };
  for (char c : text) {
    if (c == ';' || c == '\n')
      flush();
    else
      piece += c;
  }
  flush();
  return out;
}

std::string asm_opcode(const std::string& instruction) {
  size_t end = 0;
  while (end < instruction.size() && !std::isspace(static_cast<unsigned char>(instruction[end]))) ++end;
  return instruction.substr(0, end);
}

bool asm_reads_timer(const std::string& asm_template) {
  static const std::regex timer(R"(%+(clock|clock64|clock_hi|globaltimer|globaltimer_lo|globaltimer_hi)\b)");
  return std::regex_search(asm_template, timer);
}

bool asm_ends_thread(const std::string& asm_template) {
  static const std::regex ending(R"(^(trap|exit|brkpt)$)");
  return contains_opcode(asm_template, ending);
}

bool asm_is_barrier(const std::string& asm_template) {
  // Block-wide forms only: "bar.sync id" without a thread count waits for the
  // whole block; "bar.sync id, count" synchronises a chosen set of warps.
  static const std::regex sync(R"(^(bar|barrier|bar\.cta|barrier\.cta)\.sync(\.aligned)?$|^bar$)");
  static const std::regex reduce(R"(^(bar|barrier|bar\.cta|barrier\.cta)\.red(\..*)?$)");
  for (const auto& ins : asm_instructions(asm_template)) {
    std::string op = asm_opcode(ins);
    if (std::regex_match(op, reduce)) return true;
    if (std::regex_match(op, sync) && ins.find(',') == std::string::npos) return true;
  }
  return false;
}

bool asm_writes_global(const std::string& asm_template) {
  static const std::regex writes(
      R"(^((st|st\.global|st\.volatile|st\.relaxed|st\.release|st\.weak|st\.async)(\..*)?|atom\..*|red\..*|cp\.async\.bulk(\.tensor\.\dd)?\.global.*|cp\.reduce\.async\.bulk.*)$)");
  for (const auto& ins : asm_instructions(asm_template)) {
    std::string op = asm_opcode(ins);
    if (op.rfind("st.shared", 0) == 0 || op.rfind("st.local", 0) == 0 || op.rfind("st.param", 0) == 0) continue;
    if (std::regex_match(op, writes)) return true;
  }
  return false;
}

}  // namespace cusched::audit
