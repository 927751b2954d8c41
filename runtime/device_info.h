#pragma once
// What the runtime knows about a GPU: its name and the limits that matter for
// generated kernels.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace cusched::runtime {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::string arch;  // what NVRTC builds for it, e.g. "sm_90a"
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t smem_per_block_optin = 0;  // largest dynamic shared memory a block can ask for
  int64_t smem_per_sm = 0;
  int64_t total_memory_bytes = 0;
  int max_threads_per_block = 0;
  int driver_version = 0;  // e.g. 13000
  nlohmann::json to_json() const;
};

int device_count();                  // needs the driver
DeviceInfo query_device(int index);  // needs the driver; no context is created

}  // namespace cusched::runtime
