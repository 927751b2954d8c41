#pragma once
// The per-kernel resource report that ptxas prints with -v, parsed from an
// NVRTC log.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched::runtime {

struct KernelResources {
  std::string kernel;
  std::string arch;  // e.g. "sm_90a"
  int registers = 0;
  int barriers = 0;
  int64_t smem_bytes = 0;   // static shared memory
  int64_t stack_bytes = 0;  // stack frame
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  nlohmann::json to_json() const;
};

// One entry per "Compiling entry function" block of the log, in log order.
std::vector<KernelResources> parse_ptxas_report(const std::string& log);

}  // namespace cusched::runtime
