#pragma once
// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so that
// every binary starts on a machine without a GPU. Types come from cuda.h; no
// code links libcuda.
#include <optional>
#include <string>

#include <cuda.h>

#include "dsl/error.h"

namespace cusched::runtime {

// Pointers to the driver entry points the runtime uses.
struct CudaDriver {
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuGetErrorString) GetErrorString = nullptr;
  decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem) DeviceTotalMem = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) DevicePrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&::cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&::cuModuleUnload) ModuleUnload = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) FuncSetAttribute = nullptr;
  decltype(&::cuFuncGetAttribute) FuncGetAttribute = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&::cuLaunchKernelEx) LaunchKernelEx = nullptr;
  decltype(&::cuTensorMapEncodeTiled) TensorMapEncodeTiled = nullptr;
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemGetInfo) MemGetInfo = nullptr;
  decltype(&::cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&::cuMemcpyDtoDAsync) MemcpyDtoDAsync = nullptr;
  decltype(&::cuMemsetD8Async) MemsetD8Async = nullptr;
  decltype(&::cuMemsetD16Async) MemsetD16Async = nullptr;
  decltype(&::cuMemsetD32Async) MemsetD32Async = nullptr;
  decltype(&::cuStreamCreate) StreamCreate = nullptr;
  decltype(&::cuStreamDestroy) StreamDestroy = nullptr;
  decltype(&::cuStreamQuery) StreamQuery = nullptr;
  decltype(&::cuEventCreate) EventCreate = nullptr;
  decltype(&::cuEventDestroy) EventDestroy = nullptr;
  decltype(&::cuEventRecord) EventRecord = nullptr;
  decltype(&::cuEventElapsedTime) EventElapsedTime = nullptr;
  // Virtual memory management: inputs mapped read-only for candidate launches.
  decltype(&::cuCtxGetDevice) CtxGetDevice = nullptr;
  decltype(&::cuMemGetAllocationGranularity) MemGetAllocationGranularity = nullptr;
  decltype(&::cuMemCreate) MemCreate = nullptr;
  decltype(&::cuMemRelease) MemRelease = nullptr;
  decltype(&::cuMemAddressReserve) MemAddressReserve = nullptr;
  decltype(&::cuMemAddressFree) MemAddressFree = nullptr;
  decltype(&::cuMemMap) MemMap = nullptr;
  decltype(&::cuMemUnmap) MemUnmap = nullptr;
  decltype(&::cuMemSetAccess) MemSetAccess = nullptr;
};

// The message every GPU command prints when libcuda.so.1 is missing.
extern const char* const kNoDriverMessage;

// Tries to load the driver library at `path` and resolve every entry point;
// returns the error (code "no-gpu") when that fails. The result for the default
// path is remembered for the life of the process.
std::optional<Error> probe_driver_library(const std::string& path);

// nullopt when libcuda.so.1 is loadable and initialises; else the no-gpu error.
std::optional<Error> driver_available();

// The loaded and initialised driver; throws UserError("no-gpu") without one.
const CudaDriver& driver();

// A failed driver call: code "cuda-error", with the driver's result kept so that
// callers can tell an illegal address from a bad launch.
class CudaFailure : public UserError {
 public:
  CudaFailure(Error e, CUresult result) : UserError(std::move(e)), result_(result) {}
  CUresult result() const { return result_; }

 private:
  CUresult result_;
};

// Throws CudaFailure naming `what` when `r` is not CUDA_SUCCESS.
void check_cuda(CUresult r, const std::string& what);

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
std::string cuda_error_text(CUresult r);

}  // namespace cusched::runtime
