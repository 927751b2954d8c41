#include "runtime/gpu_context.h"

#include <chrono>
#include <thread>

namespace cusched::runtime {

namespace {
bool g_context_broken = false;
}

bool context_broken() { return g_context_broken; }
void mark_context_broken() { g_context_broken = true; }

GpuContext::GpuContext(int device_index) : index_(device_index) {
  const CudaDriver& d = driver();
  int count = 0;
  check_cuda(d.DeviceGetCount(&count), "cuDeviceGetCount");
  if (device_index < 0 || device_index >= count)
    fail(
        "no-such-device",
        "There is no CUDA device " + std::to_string(device_index) + "; this machine has " + std::to_string(count) + ".",
        "Pick a device index from 0 to " + std::to_string(count - 1) + ".");
  check_cuda(d.DeviceGet(&device_, device_index), "cuDeviceGet");
  check_cuda(d.DevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  check_cuda(d.CtxSetCurrent(context_), "cuCtxSetCurrent");
  check_cuda(d.StreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
}

GpuContext::~GpuContext() {
  if (context_broken()) return;
  const CudaDriver& d = driver();
  if (stream_) d.StreamDestroy(stream_);
  if (context_) d.DevicePrimaryCtxRelease(device_);
}

int GpuContext::attribute(CUdevice_attribute a) const {
  int v = 0;
  check_cuda(driver().DeviceGetAttribute(&v, a, device_), "cuDeviceGetAttribute");
  return v;
}

void GpuContext::wait(double watchdog_s, const std::string& what) const {
  const CudaDriver& d = driver();
  auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    CUresult r = d.StreamQuery(stream_);
    if (r == CUDA_SUCCESS) return;
    if (r != CUDA_ERROR_NOT_READY) check_cuda(r, what);
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > watchdog_s) {
      mark_context_broken();
      throw WatchdogTimeout(what + " was still running after the watchdog's " + std::to_string(watchdog_s) + " s.");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace cusched::runtime
