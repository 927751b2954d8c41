#include "runtime/module_state_scan.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "runtime/ptx_text.h"

namespace cusched::runtime {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == ',' || c == '(' || c == ')' || c == ';') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

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

}  // namespace

std::optional<PersistentStateUse> persistent_state(const std::string& ptx) {
  std::istringstream in(ptx);
  std::string raw;
  int line_no = 0, braces = 0, parens = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string code = raw.substr(0, raw.find("//"));
    std::vector<std::string> w = words(code);
    if (braces == 0 && parens == 0 && !w.empty()) {
      std::string name = declared_global(w);
      if (!name.empty()) return PersistentStateUse{"global variable", name, trim_ptx(code), line_no};
      std::string heap = declared_heap_function(w);
      if (!heap.empty()) return PersistentStateUse{"device heap", heap, trim_ptx(code), line_no};
    }
    for (char c : code) {
      braces += c == '{' ? 1 : c == '}' ? -1 : 0;
      parens += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    braces = std::max(braces, 0);
    parens = std::max(parens, 0);
  }
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
         "), state that outlives a launch, so its output could depend on an earlier launch; remove "
         "__device__ variables and static variables from device code (a read-only table can be __constant__).";
}

}  // namespace cusched::runtime
