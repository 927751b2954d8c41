#include "runtime/device_buffer.h"

#include <utility>

#include "runtime/gpu_context.h"

namespace cusched::runtime {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  check_cuda(driver().MemAlloc(&ptr_, bytes ? bytes : 1), "cuMemAlloc of " + std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() {
  if (ptr_ && !context_broken()) driver().MemFree(ptr_);
  ptr_ = 0;
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
