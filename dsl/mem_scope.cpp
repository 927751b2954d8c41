#include "dsl/mem_scope.h"

#include "dsl/error.h"

namespace cusched {

std::string mem_scope_name(MemScope s) {
  switch (s) {
    case MemScope::Global:
      return "global";
    case MemScope::Shared:
      return "shared";
    case MemScope::Register:
      return "register";
  }
  return "?";
}

std::optional<MemScope> mem_scope_from_name(const std::string& name) {
  for (MemScope s : {MemScope::Global, MemScope::Shared, MemScope::Register})
    if (mem_scope_name(s) == name) return s;
  return std::nullopt;
}

MemScope parse_mem_scope(const std::string& name) {
  if (auto s = mem_scope_from_name(name)) return *s;
  fail("unknown-scope", "The memory scope '" + name + "' is not known.", "Use shared or register.");
}

}  // namespace cusched
