#pragma once
// The device buffers of one run of a bundle. A candidate's buffers carry guard
// regions filled with a pattern on both sides (an out-of-bounds write changes
// them), and its inputs are mapped read-only for the device once filled (a write
// faults), where the driver offers read-only mappings.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"
#include "runtime/device_buffer.h"
#include "runtime/device_check.h"
#include "runtime/gpu_context.h"

namespace cusched::runtime {

using HostTensors = std::map<std::string, std::vector<uint8_t>>;
using DeviceTensors = std::map<std::string, DeviceBuffer>;

// Bytes of guard region before and after each candidate buffer, and their pattern.
constexpr size_t kGuardBytes = size_t{1} << 20;
constexpr uint32_t kGuardPattern = 0xA5C3E1F7u;

struct Allocation {
  std::map<std::string, DeviceBuffer> buffers;
  std::map<std::string, CUdeviceptr> addresses;
};

// How a candidate's inputs were kept unchanged: "read-only mapping", or "checksum"
// when no read-only mapping was asked for or the driver refused one (then `note`
// says why).
struct InputProtection {
  std::string mode;
  std::string note;
};

// A bundle's buffers, freshly allocated: inputs filled (from host data, or by a
// device-to-device copy of pristine device data), outputs poisoned. For a
// candidate (`guarded`), every buffer has guard regions, and with
// `read_only_inputs` the inputs are mapped read-only after the fill (which waits
// for the stream); *protection says what was done.
std::unique_ptr<Allocation> allocate_buffers(const KernelBundle& bundle, const GpuContext& ctx,
                                             const HostTensors* host_inputs, const DeviceTensors* device_inputs,
                                             bool guarded, bool read_only_inputs, InputProtection* protection,
                                             double watchdog_s);

// Writes the poison pattern over every output of `bundle` in `a` on the stream.
void poison_outputs(const KernelBundle& bundle, const Allocation& a, CUstream stream);

// A guard region that no longer holds its pattern.
struct GuardDamage {
  std::string buffer;
  bool after = true;   // the guard after the buffer (else before it)
  int64_t offset = 0;  // first changed byte, counted from the buffer's end (after) or the guard's start (before)
};

// The first damaged guard of `a`'s guarded buffers, checked on the device against
// `pattern` (kGuardBytes of kGuardPattern) with `checker`, or, without a checker, on the host.
std::optional<GuardDamage> damaged_guard(const Allocation& a, const DeviceChecker* checker,
                                         const DeviceBuffer* pattern);

// A device buffer of kGuardBytes filled with kGuardPattern (synchronously).
DeviceBuffer guard_pattern_buffer(const GpuContext& ctx);

}  // namespace cusched::runtime
