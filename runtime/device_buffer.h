#pragma once
// An owned allocation of device memory: plain, with guard regions on both sides,
// or mapped through the driver's virtual memory API so that it can be made
// read-only for the device after it has been filled.
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

  // `bytes` with `guard` bytes (a multiple of 256) of guard region before and after;
  // the guards are not filled (see fill_guards).
  static DeviceBuffer guarded(size_t bytes, size_t guard);
  // `bytes` with at least `guard` bytes before and after, in memory created with
  // cuMemCreate and mapped read-write for the current device; make_read_only()
  // then takes the write permission away. The guards are part of the mapping.
  static DeviceBuffer mapped(size_t bytes, size_t guard);

  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  size_t guard() const { return guard_; }
  bool is_mapped() const { return handle_ != 0; }
  bool read_only() const { return read_only_; }
  CUdeviceptr guard_before() const { return ptr_ - guard_; }
  CUdeviceptr guard_after() const { return ptr_ + bytes_; }

  // Fills both guards with the 32-bit `pattern` on `stream`.
  void fill_guards(uint32_t pattern, CUstream stream) const;
  // Maps a mapped buffer read-only for the device (all work on it must have
  // finished). Returns the driver's result: not CUDA_SUCCESS where the driver or
  // the device does not offer read-only mappings, and then the buffer stays writable.
  CUresult make_read_only();

  void upload(const std::vector<uint8_t>& host) const;  // host.size() must equal bytes()
  std::vector<uint8_t> download() const;                // synchronous

 private:
  void release();
  CUdeviceptr base_ = 0;  // the allocation (or reservation) start
  size_t span_ = 0;       // its size
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
  size_t guard_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
  bool read_only_ = false;
};

}  // namespace cusched::runtime
