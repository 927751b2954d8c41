#include "runtime/module_state_scan.h"

#include <algorithm>
#include <vector>

#include "runtime/ptx_text.h"

namespace cusched::runtime {

namespace {

// The variable a module-scope `.global` declaration names: the declaration starts with
// `.global`, or with a linkage directive and then `.global`; the name is the first word
// after the directives (".align", ".b8", ...) and numbers, without its array extent or
// initializer. Empty for any other line, for texture, surface and sampler references,
// which are handles, and for string literals.
std::string declared_global(const std::vector<std::string>& w) {
  size_t at = 0;
  while (at < w.size() && (w[at] == ".visible" || w[at] == ".extern" || w[at] == ".weak" || w[at] == ".common")) ++at;
  if (at >= w.size() || w[at] != ".global") return "";
  for (size_t i = at + 1; i < w.size(); ++i) {
    const std::string& t = w[i];
    if (t == ".texref" || t == ".surfref" || t == ".samplerref" || t == "=") return "";
    if (t.empty() || t[0] == '.' || (t[0] >= '0' && t[0] <= '9')) continue;
    // String literals ($str, $str$1, ...) are constants the compiler places in global memory.
    if (t.rfind("$str", 0) == 0) return "";
    return t.substr(0, t.find('['));
  }
  return "";
}

// The device-heap function a module-scope `.func` declaration names (a call to it needs
// the declaration), or empty.
std::string declared_heap_function(const std::vector<std::string>& w) {
  bool func = false;
  for (const auto& t : w) func |= t == ".func";
  if (!func || w[0].empty() || w[0][0] != '.') return "";
  const std::string& name = w.back();
  return name == "malloc" || name == "free" ? name : "";
}

// An instruction inside a function body: its opcode and, for each operand (destination
// first), the names it mentions ("[%rd1+4]" mentions %rd1).
struct Access {
  std::string opcode;
  std::vector<std::vector<std::string>> operands;
};

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Whether the module may write global variable `name`: a store, atomic or reduction (or a
// copy into it) names it or a register that holds an address derived from it. Registers
// derive from it through any instruction but a load (a value loaded from the variable is
// data, not its address); a derived address stored anywhere, passed to a call or written
// by an atomic escapes, and counts as a write. A table the module only reads is no state.
bool written(const std::string& name, const std::vector<Access>& code) {
  std::vector<std::string> derived = {name};
  auto mentions = [&](const std::vector<std::string>& names) {
    for (const auto& n : names)
      if (std::find(derived.begin(), derived.end(), n) != derived.end()) return true;
    return false;
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& in : code) {
      const std::string& op = in.opcode;
      const bool store = starts(op, "st") || starts(op, "atom") || starts(op, "red") || starts(op, "multimem");
      if (store || starts(op, "cp")) {
        // A copy writes its first operand; a store, atomic or reduction writes through its
        // address and may store a derived address as its value.
        const size_t checked = store ? in.operands.size() : std::min<size_t>(1, in.operands.size());
        for (size_t i = 0; i < checked; ++i)
          if (mentions(in.operands[i])) return true;
        continue;
      }
      if (starts(op, "ld") || in.operands.size() < 2) continue;
      bool from = false;
      for (size_t i = 1; i < in.operands.size(); ++i) from |= mentions(in.operands[i]);
      if (!from) continue;
      for (const auto& d : in.operands[0])
        if (!d.empty() && d[0] == '%' && std::find(derived.begin(), derived.end(), d) == derived.end()) {
          derived.push_back(d);
          grew = true;
        }
    }
  }
  return false;
}

}  // namespace

std::optional<PersistentStateUse> persistent_state(const std::string& ptx) {
  int braces = 0, parens = 0;
  std::vector<PersistentStateUse> globals;
  std::vector<Access> code;
  for (const auto& [text, line] : ptx_statements(ptx)) {
    std::vector<std::string> w = split_any(text, " \t,();");
    if (braces == 0 && parens == 0 && !w.empty()) {
      std::string name = declared_global(w);
      if (!name.empty()) globals.push_back({"global variable", name, trim_ptx(text), line});
      std::string heap = declared_heap_function(w);
      if (!heap.empty()) return PersistentStateUse{"device heap", heap, trim_ptx(text), line};
    } else if (braces > 0) {
      if (auto ins = parse_ptx_instruction(text)) {
        Access a{ins->opcode, {}};
        for (const auto& o : ins->operands) a.operands.push_back(split_any(o, "[]+-{}() \t"));
        code.push_back(a);
      }
    }
    for (char c : text) {
      braces += c == '{' ? 1 : c == '}' ? -1 : 0;
      parens += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    braces = std::max(braces, 0);
    parens = std::max(parens, 0);
  }
  for (const auto& g : globals)
    if (written(g.name, code)) return g;
  return std::nullopt;
}

std::string persistent_state_message(const PersistentStateUse& use) {
  if (use.kind == "device heap")
    return "The compiled kernel calls the device heap's " + use.name + " (PTX line " + std::to_string(use.line) + ": " +
           use.instruction +
           "), memory that outlives a launch, so its output could depend on an earlier launch; allocate "
           "nothing on the device and keep every value in the kernel's own buffers, shared memory or registers.";
  return "The compiled kernel declares the global variable '" + use.name + "' (PTX line " + std::to_string(use.line) +
         ": " + use.instruction +
         ") and writes it, state that outlives a launch, so its output could depend on an earlier launch; remove "
         "__device__ variables and static variables that device code writes (a read-only table can stay, or be "
         "__constant__).";
}

}  // namespace cusched::runtime
