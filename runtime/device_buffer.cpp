#include "runtime/device_buffer.h"

#include <utility>

#include "runtime/gpu_context.h"

namespace cusched::runtime {

namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

CUmemAllocationProp device_memory(CUdevice device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

CUresult set_access(CUdeviceptr base, size_t span, CUdevice device, CUmemAccess_flags flags) {
  CUmemAccessDesc access = {};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = flags;
  return driver().MemSetAccess(base, span, &access, 1);
}

}  // namespace

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  check_cuda(driver().MemAlloc(&ptr_, bytes ? bytes : 1), "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  base_ = ptr_;
  span_ = bytes ? bytes : 1;
}

DeviceBuffer DeviceBuffer::guarded(size_t bytes, size_t guard) {
  DeviceBuffer b;
  b.span_ = bytes + 2 * guard;
  check_cuda(driver().MemAlloc(&b.base_, b.span_ ? b.span_ : 1),
             "cuMemAlloc of " + std::to_string(b.span_) + " bytes (with guard regions)");
  b.ptr_ = b.base_ + guard;
  b.bytes_ = bytes;
  b.guard_ = guard;
  return b;
}

DeviceBuffer DeviceBuffer::mapped(size_t bytes, size_t guard) {
  const CudaDriver& d = driver();
  CUdevice device = 0;
  check_cuda(d.CtxGetDevice(&device), "cuCtxGetDevice");
  CUmemAllocationProp prop = device_memory(device);
  size_t granularity = 0;
  check_cuda(d.MemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
             "cuMemGetAllocationGranularity");
  DeviceBuffer b;
  b.guard_ = guard;
  b.bytes_ = bytes;
  b.span_ = round_up(bytes + 2 * guard, granularity);
  check_cuda(d.MemCreate(&b.handle_, b.span_, &prop, 0), "cuMemCreate of " + std::to_string(b.span_) + " bytes");
  CUresult r = d.MemAddressReserve(&b.base_, b.span_, granularity, 0, 0);
  if (r == CUDA_SUCCESS) {
    r = d.MemMap(b.base_, b.span_, 0, b.handle_, 0);
    if (r == CUDA_SUCCESS) {
      r = set_access(b.base_, b.span_, device, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
      if (r != CUDA_SUCCESS) d.MemUnmap(b.base_, b.span_);
    }
    if (r != CUDA_SUCCESS) d.MemAddressFree(b.base_, b.span_);
  }
  if (r != CUDA_SUCCESS) {
    d.MemRelease(b.handle_);
    b.handle_ = 0;
    b.base_ = 0;
    check_cuda(r, "Mapping " + std::to_string(b.span_) + " bytes with the virtual memory API");
  }
  b.ptr_ = b.base_ + guard;
  return b;
}

CUresult DeviceBuffer::make_read_only() {
  if (!handle_) return CUDA_ERROR_NOT_SUPPORTED;
  CUdevice device = 0;
  CUresult r = driver().CtxGetDevice(&device);
  if (r == CUDA_SUCCESS) r = set_access(base_, span_, device, CU_MEM_ACCESS_FLAGS_PROT_READ);
  read_only_ = r == CUDA_SUCCESS;
  return r;
}

void DeviceBuffer::fill_guards(uint32_t pattern, CUstream stream) const {
  if (!guard_) return;
  const CudaDriver& d = driver();
  check_cuda(d.MemsetD32Async(guard_before(), pattern, guard_ / 4, stream), "Filling a guard region");
  check_cuda(d.MemsetD32Async(guard_after(), pattern, guard_ / 4, stream), "Filling a guard region");
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : base_(std::exchange(o.base_, 0)),
      span_(std::exchange(o.span_, 0)),
      ptr_(std::exchange(o.ptr_, 0)),
      bytes_(std::exchange(o.bytes_, 0)),
      guard_(std::exchange(o.guard_, 0)),
      handle_(std::exchange(o.handle_, 0)),
      read_only_(std::exchange(o.read_only_, false)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, 0);
    span_ = std::exchange(o.span_, 0);
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
    guard_ = std::exchange(o.guard_, 0);
    handle_ = std::exchange(o.handle_, 0);
    read_only_ = std::exchange(o.read_only_, false);
  }
  return *this;
}

void DeviceBuffer::release() {
  if (base_ && !context_broken()) {
    if (handle_) {
      const CudaDriver& d = driver();
      d.MemUnmap(base_, span_);
      d.MemAddressFree(base_, span_);
      d.MemRelease(handle_);
    } else {
      driver().MemFree(base_);
    }
  }
  base_ = ptr_ = 0;
  handle_ = 0;
}

void DeviceBuffer::upload(const std::vector<uint8_t>& host) const {
  if (host.size() != bytes_)
    fail("internal-error", "An upload of " + std::to_string(host.size()) + " bytes does not fit a buffer of " +
                               std::to_string(bytes_) + " bytes.");
  if (bytes_) check_cuda(driver().MemcpyHtoD(ptr_, host.data(), bytes_), "cuMemcpyHtoD");
}

std::vector<uint8_t> DeviceBuffer::download() const {
  std::vector<uint8_t> host(bytes_);
  if (bytes_) check_cuda(driver().MemcpyDtoH(host.data(), ptr_, bytes_), "cuMemcpyDtoH");
  return host;
}

}  // namespace cusched::runtime
