#pragma once
// An owned allocation of device memory.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/cuda_driver.h"

namespace cusched::runtime {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);  // at least one byte is allocated
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

  void upload(const std::vector<uint8_t>& host) const;  // host.size() must equal bytes()
  std::vector<uint8_t> download() const;                // synchronous

 private:
  void release();
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace cusched::runtime
