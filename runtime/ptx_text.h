#pragma once
// Reading PTX text: the scans of compiled code (runtime/precision_scan.h,
// runtime/module_state_scan.h) share one reader of its statements and instructions.
#include <optional>
#include <string>
#include <vector>

namespace cusched::runtime {

// `s` without leading blanks and without trailing blanks and semicolons.
std::string trim_ptx(const std::string& s);

// `s` cut at every character of `separators`, empty pieces dropped.
std::vector<std::string> split_any(const std::string& s, const std::string& separators);

// One statement of the text: what lies between semicolons on a line, comments removed
// (a line of inline asm may hold several), with its 1-based line number.
struct PtxStatement {
  std::string text;
  int line = 0;
};
std::vector<PtxStatement> ptx_statements(const std::string& ptx);

// An instruction: its opcode and operands, the predicate guard, the braces of inline asm
// and a register's predicate ("%r1|%p1", as shfl.sync writes) removed.
struct PtxInstruction {
  std::string opcode;
  std::vector<std::string> operands;
};
// The instruction a statement holds; none for a directive, a label or an empty statement.
std::optional<PtxInstruction> parse_ptx_instruction(const std::string& statement);

}  // namespace cusched::runtime
