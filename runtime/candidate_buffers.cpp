#include "runtime/candidate_buffers.h"

#include <atomic>
#include <cstring>

#include "runtime/output_check.h"

namespace cusched::runtime {

namespace {

// Once the driver has refused a read-only mapping, this process stops asking.
std::atomic<bool> read_only_refused{false};
std::string read_only_refusal;

}  // namespace

std::unique_ptr<Allocation> allocate_buffers(const KernelBundle& bundle, const GpuContext& ctx,
                                             const HostTensors* host_inputs, const DeviceTensors* device_inputs,
                                             bool guarded, bool read_only_inputs, InputProtection* protection,
                                             double watchdog_s) {
  auto a = std::make_unique<Allocation>();
  const CudaDriver& d = driver();
  const bool map_inputs = guarded && read_only_inputs && !read_only_refused;
  for (const auto& b : bundle.buffers) {
    const size_t bytes = static_cast<size_t>(b.bytes());
    DeviceBuffer buf;
    if (!guarded)
      buf = DeviceBuffer(bytes);
    else if (b.role == BufferRole::Input && map_inputs)
      buf = DeviceBuffer::mapped(bytes, kGuardBytes);
    else
      buf = DeviceBuffer::guarded(bytes, kGuardBytes);
    buf.fill_guards(kGuardPattern, ctx.stream());
    if (b.role == BufferRole::Input) {
      if (host_inputs) {
        ctx.wait(watchdog_s, "Filling guard regions");  // the synchronous upload below does not order with the stream
        buf.upload(host_inputs->at(b.name));
      } else if (buf.bytes()) {
        check_cuda(d.MemcpyDtoDAsync(buf.ptr(), device_inputs->at(b.name).ptr(), buf.bytes(), ctx.stream()),
                   "Copying the pristine input '" + b.name + "'");
      }
    }
    a->addresses[b.name] = buf.ptr();
    a->buffers.emplace(b.name, std::move(buf));
  }
  poison_outputs(bundle, *a, ctx.stream());
  if (!guarded) return a;
  InputProtection p{"checksum", read_only_inputs ? read_only_refusal : "Read-only inputs were not asked for."};
  if (map_inputs) {
    ctx.wait(watchdog_s, "Filling the candidate's inputs");
    p.mode = "read-only mapping";
    p.note.clear();
    for (auto& [name, buf] : a->buffers) {
      if (!buf.is_mapped()) continue;
      CUresult r = buf.make_read_only();
      if (r != CUDA_SUCCESS) {
        read_only_refusal = "The driver refused a read-only mapping (" + cuda_error_text(r) +
                            "), so inputs are checked by comparison with pristine copies after each launch only.";
        read_only_refused = true;
        p = {"checksum", read_only_refusal};
        break;
      }
    }
  }
  if (protection) *protection = p;
  return a;
}

void poison_outputs(const KernelBundle& bundle, const Allocation& a, CUstream stream) {
  const CudaDriver& d = driver();
  for (const auto& b : bundle.buffers) {
    if (b.role != BufferRole::Output || b.elements() == 0) continue;
    CUdeviceptr p = a.buffers.at(b.name).ptr();
    uint32_t word = poison_word(b.dtype);
    size_t n = static_cast<size_t>(b.bytes());
    switch (dtype_bytes(b.dtype)) {
      case 1:
        check_cuda(d.MemsetD8Async(p, static_cast<unsigned char>(word), n, stream), "Poisoning outputs");
        break;
      case 2:
        check_cuda(d.MemsetD16Async(p, static_cast<unsigned short>(word), n / 2, stream), "Poisoning outputs");
        break;
      default:
        check_cuda(d.MemsetD32Async(p, word, n / 4, stream), "Poisoning outputs");
        break;
    }
  }
}

std::optional<GuardDamage> damaged_guard(const Allocation& a, const DeviceChecker* checker,
                                         const DeviceBuffer* pattern) {
  std::vector<uint8_t> host_pattern, host_guard;
  if (!checker) {
    host_pattern.resize(kGuardBytes);
    for (size_t i = 0; i < kGuardBytes; i += 4) std::memcpy(host_pattern.data() + i, &kGuardPattern, 4);
    host_guard.resize(kGuardBytes);
  }
  for (const auto& [name, buf] : a.buffers) {
    if (buf.guard() != kGuardBytes) continue;
    for (bool after : {true, false}) {
      CUdeviceptr g = after ? buf.guard_after() : buf.guard_before();
      int64_t first = -1;
      if (checker) {
        first = checker->first_difference(g, pattern->ptr(), kGuardBytes);
      } else {
        check_cuda(driver().MemcpyDtoH(host_guard.data(), g, kGuardBytes), "Reading a guard region");
        for (size_t i = 0; i < kGuardBytes && first < 0; ++i)
          if (host_guard[i] != host_pattern[i]) first = static_cast<int64_t>(i);
      }
      if (first >= 0) return GuardDamage{name, after, first};
    }
  }
  return std::nullopt;
}

DeviceBuffer guard_pattern_buffer(const GpuContext& ctx) {
  DeviceBuffer p(kGuardBytes);
  check_cuda(driver().MemsetD32Async(p.ptr(), kGuardPattern, kGuardBytes / 4, ctx.stream()),
             "Filling the guard pattern");
  ctx.wait(30, "Filling the guard pattern");
  return p;
}

}  // namespace cusched::runtime
