#include "runtime/device_info.h"

#include "runtime/cuda_driver.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {

nlohmann::json DeviceInfo::to_json() const {
  return {{"index", index},
          {"name", name},
          {"compute_capability", std::to_string(cc_major) + "." + std::to_string(cc_minor)},
          {"arch", arch},
          {"sm_count", sm_count},
          {"l2_bytes", l2_bytes},
          {"smem_per_block_optin", smem_per_block_optin},
          {"smem_per_sm", smem_per_sm},
          {"total_memory_bytes", total_memory_bytes},
          {"max_threads_per_block", max_threads_per_block},
          {"driver_version", driver_version}};
}

int device_count() {
  int n = 0;
  check_cuda(driver().DeviceGetCount(&n), "cuDeviceGetCount");
  return n;
}

DeviceInfo query_device(int index) {
  const CudaDriver& d = driver();
  int count = device_count();
  if (index < 0 || index >= count)
    fail("no-such-device",
         "There is no CUDA device " + std::to_string(index) + "; this machine has " + std::to_string(count) + ".",
         "Pick a device index from 0 to " + std::to_string(count - 1) + ".");
  CUdevice dev;
  check_cuda(d.DeviceGet(&dev, index), "cuDeviceGet");
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    check_cuda(d.DeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
    return v;
  };
  DeviceInfo info;
  info.index = index;
  char name[256] = {};
  check_cuda(d.DeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  info.name = name;
  info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.arch = arch_for_compute_capability(info.cc_major, info.cc_minor);
  info.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.smem_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.smem_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  size_t total = 0;
  check_cuda(d.DeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  info.total_memory_bytes = static_cast<int64_t>(total);
  check_cuda(d.DriverGetVersion(&info.driver_version), "cuDriverGetVersion");
  return info;
}

}  // namespace cusched::runtime
