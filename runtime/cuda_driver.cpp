#include "runtime/cuda_driver.h"

#include <mutex>

#include <dlfcn.h>

namespace cusched::runtime {

const char* const kNoDriverMessage =
    "No CUDA driver was found (libcuda.so.1 could not be loaded); this command needs a machine with "
    "an NVIDIA GPU and its driver.";

namespace {

#define CUSCHED_STRINGIZE_NAME(x) #x
// Expands cuda.h's versioning macros (cuMemAlloc -> cuMemAlloc_v2) before quoting.
#define CUSCHED_EXPANDED_NAME(x) CUSCHED_STRINGIZE_NAME(x)

Error no_gpu_error(std::string message) {
  Error e;
  e.code = "no-gpu";
  e.message = std::move(message);
  return e;
}

// Resolves every entry point from `handle`; returns the first missing symbol's name.
std::optional<std::string> resolve(void* handle, CudaDriver& d) {
  std::optional<std::string> missing;
  auto load = [&](auto& fn, const char* name) {
    void* p = dlsym(handle, name);
    if (!p && !missing) missing = name;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
#define CUSCHED_LOAD(field, api) load(d.field, CUSCHED_EXPANDED_NAME(api))
  CUSCHED_LOAD(Init, cuInit);
  CUSCHED_LOAD(DriverGetVersion, cuDriverGetVersion);
  CUSCHED_LOAD(GetErrorName, cuGetErrorName);
  CUSCHED_LOAD(GetErrorString, cuGetErrorString);
  CUSCHED_LOAD(DeviceGetCount, cuDeviceGetCount);
  CUSCHED_LOAD(DeviceGet, cuDeviceGet);
  CUSCHED_LOAD(DeviceGetName, cuDeviceGetName);
  CUSCHED_LOAD(DeviceGetAttribute, cuDeviceGetAttribute);
  CUSCHED_LOAD(DeviceTotalMem, cuDeviceTotalMem);
  CUSCHED_LOAD(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
  CUSCHED_LOAD(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease);
  CUSCHED_LOAD(CtxSetCurrent, cuCtxSetCurrent);
  CUSCHED_LOAD(CtxSynchronize, cuCtxSynchronize);
  CUSCHED_LOAD(ModuleLoadData, cuModuleLoadData);
  CUSCHED_LOAD(ModuleUnload, cuModuleUnload);
  CUSCHED_LOAD(ModuleGetFunction, cuModuleGetFunction);
  CUSCHED_LOAD(FuncSetAttribute, cuFuncSetAttribute);
  CUSCHED_LOAD(FuncGetAttribute, cuFuncGetAttribute);
  CUSCHED_LOAD(LaunchKernel, cuLaunchKernel);
  CUSCHED_LOAD(LaunchKernelEx, cuLaunchKernelEx);
  CUSCHED_LOAD(TensorMapEncodeTiled, cuTensorMapEncodeTiled);
  CUSCHED_LOAD(MemAlloc, cuMemAlloc);
  CUSCHED_LOAD(MemFree, cuMemFree);
  CUSCHED_LOAD(MemGetInfo, cuMemGetInfo);
  CUSCHED_LOAD(MemcpyHtoD, cuMemcpyHtoD);
  CUSCHED_LOAD(MemcpyDtoH, cuMemcpyDtoH);
  CUSCHED_LOAD(MemcpyDtoDAsync, cuMemcpyDtoDAsync);
  CUSCHED_LOAD(MemsetD8Async, cuMemsetD8Async);
  CUSCHED_LOAD(MemsetD16Async, cuMemsetD16Async);
  CUSCHED_LOAD(MemsetD32Async, cuMemsetD32Async);
  CUSCHED_LOAD(StreamCreate, cuStreamCreate);
  CUSCHED_LOAD(StreamDestroy, cuStreamDestroy);
  CUSCHED_LOAD(StreamQuery, cuStreamQuery);
  CUSCHED_LOAD(EventCreate, cuEventCreate);
  CUSCHED_LOAD(EventDestroy, cuEventDestroy);
  CUSCHED_LOAD(EventRecord, cuEventRecord);
  CUSCHED_LOAD(EventElapsedTime, cuEventElapsedTime);
  CUSCHED_LOAD(CtxGetDevice, cuCtxGetDevice);
  CUSCHED_LOAD(MemGetAllocationGranularity, cuMemGetAllocationGranularity);
  CUSCHED_LOAD(MemCreate, cuMemCreate);
  CUSCHED_LOAD(MemRelease, cuMemRelease);
  CUSCHED_LOAD(MemAddressReserve, cuMemAddressReserve);
  CUSCHED_LOAD(MemAddressFree, cuMemAddressFree);
  CUSCHED_LOAD(MemMap, cuMemMap);
  CUSCHED_LOAD(MemUnmap, cuMemUnmap);
  CUSCHED_LOAD(MemSetAccess, cuMemSetAccess);
#undef CUSCHED_LOAD
  return missing;
}

// Loads and initialises the driver at `path` into `d`.
std::optional<Error> load_driver(const std::string& path, CudaDriver& d) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    if (path == "libcuda.so.1") return no_gpu_error(kNoDriverMessage);
    return no_gpu_error("No CUDA driver was found (" + path +
                        " could not be loaded); this command needs a machine with an NVIDIA GPU and its driver.");
  }
  if (auto missing = resolve(handle, d)) {
    dlclose(handle);
    return no_gpu_error("The CUDA driver at " + path + " lacks the entry point " + *missing +
                        "; this command needs a driver for CUDA 13 or newer.");
  }
  CUresult r = d.Init(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    d.GetErrorName(r, &name);
    dlclose(handle);
    return no_gpu_error(std::string("The CUDA driver was loaded but could not initialise (") +
                        (name ? name : "unknown error") + "); this command needs a working NVIDIA GPU.");
  }
  return std::nullopt;  // the handle stays open for the life of the process
}

struct LoadedDriver {
  CudaDriver driver;
  std::optional<Error> error;
};

const LoadedDriver& default_driver() {
  static LoadedDriver loaded = [] {
    LoadedDriver l;
    l.error = load_driver("libcuda.so.1", l.driver);
    return l;
  }();
  return loaded;
}

}  // namespace

std::optional<Error> probe_driver_library(const std::string& path) {
  if (path == "libcuda.so.1") return default_driver().error;
  CudaDriver d;
  return load_driver(path, d);
}

std::optional<Error> driver_available() { return default_driver().error; }

const CudaDriver& driver() {
  const auto& l = default_driver();
  if (l.error) throw UserError(*l.error);
  return l.driver;
}

std::string cuda_error_text(CUresult r) {
  const CudaDriver& d = default_driver().driver;
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.GetErrorName) d.GetErrorName(r, &name);
  if (d.GetErrorString) d.GetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) s += std::string(": ") + text;
  return s;
}

void check_cuda(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  Error e;
  e.code = "cuda-error";
  e.message = what + " failed with " + cuda_error_text(r) + ".";
  e.hint = "Run the candidate alone under compute-sanitizer to locate the fault.";
  throw CudaFailure(std::move(e), r);
}

}  // namespace cusched::runtime
