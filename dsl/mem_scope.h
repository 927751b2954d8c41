// Where a buffer lives: global memory, a block's shared memory or a thread's
// registers. A stage's staged copies (cache_read) and output tile (cache_write) name
// one; lowering gives every buffer one. Names ("shared", ...) are used only where
// scopes meet JSON and printed text.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace cusched {

enum class MemScope { Global, Shared, Register };

std::string mem_scope_name(MemScope s);  // "global", "shared", "register"
std::optional<MemScope> mem_scope_from_name(const std::string& name);
// mem_scope_from_name, or a UserError "unknown-scope".
MemScope parse_mem_scope(const std::string& name);
inline std::ostream& operator<<(std::ostream& os, MemScope s) { return os << mem_scope_name(s); }

}  // namespace cusched
