#include "runtime/ptx_text.h"

#include <sstream>

namespace cusched::runtime {

std::string trim_ptx(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r;");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split_any(const std::string& s, const std::string& separators) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (separators.find(c) == std::string::npos) {
      cur += c;
      continue;
    }
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<PtxStatement> ptx_statements(const std::string& ptx) {
  std::vector<PtxStatement> out;
  std::stringstream ss(ptx);
  std::string line;
  int number = 0;
  while (std::getline(ss, line)) {
    ++number;
    line = line.substr(0, line.find("//"));
    std::stringstream parts(line);
    std::string part;
    while (std::getline(parts, part, ';'))
      if (!trim_ptx(part).empty()) out.push_back({part, number});
  }
  return out;
}

std::optional<PtxInstruction> parse_ptx_instruction(const std::string& statement) {
  std::string text = trim_ptx(statement);
  // Inline asm arrives wrapped in braces: "{ cvt.rn.bf16.f32 %rs1, %f1;}".
  while (!text.empty() && (text[0] == '{' || text[0] == '}')) text = trim_ptx(text.substr(1));
  while (!text.empty() && (text.back() == '{' || text.back() == '}')) text = trim_ptx(text.substr(0, text.size() - 1));
  if (text.empty() || text[0] == '.' || text.back() == ':') return std::nullopt;
  if (text[0] == '@') {
    size_t sp = text.find_first_of(" \t");
    if (sp == std::string::npos) return std::nullopt;
    text = trim_ptx(text.substr(sp));
  }
  PtxInstruction ins;
  size_t sp = text.find_first_of(" \t");
  ins.opcode = text.substr(0, sp);
  if (sp != std::string::npos) {
    std::stringstream operands(text.substr(sp));
    std::string o;
    while (std::getline(operands, o, ',')) ins.operands.push_back(trim_ptx(o.substr(0, o.find('|'))));
  }
  return ins;
}

}  // namespace cusched::runtime
