#pragma once
// State a compiled kernel module keeps from one launch to the next, read from its PTX:
// module-scope variables in global memory (`__device__` variables and function-scope
// `static` variables in device code, which outlive a launch) that the module may write
// (a store, atomic or reduction through an address derived from the variable, or the
// address escaping into memory or a call; a table it only reads, such as the math
// library's, is no state), and allocations from the device heap (`malloc`, whose memory
// outlives a launch too). A kernel whose output may
// depend on an earlier launch can replay a remembered result, so verification refuses
// both. The scan reads the compiled code, so it holds for a kernel whatever its source
// looks like, with or without the Clang audit.
#include <optional>
#include <string>

namespace cusched::runtime {

struct PersistentStateUse {
  std::string kind;         // "global variable" or "device heap"
  std::string name;         // the variable or the heap function
  std::string instruction;  // the PTX line, trimmed
  int line = 0;             // 1-based line in the PTX text
};

// A device-heap call in `ptx`, else the first module-scope global variable that the
// module may write, or none.
std::optional<PersistentStateUse> persistent_state(const std::string& ptx);

// The full-sentence message and fix for a verdict of persistent_state.
std::string persistent_state_message(const PersistentStateUse& use);

}  // namespace cusched::runtime
