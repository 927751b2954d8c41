// `cusched device`: the GPU the runtime would use, its limits and its measured
// copy bandwidth; on a machine without a CUDA driver, one line and exit code 3.
#include <iostream>

#include "dsl/error.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"
#include "runtime/gpu_context.h"
#include "runtime/timing.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

struct DeviceFlags {
  int index = 0;
  bool json = false;
  bool no_bandwidth = false;
};

int run_device(const DeviceFlags& f) {
  using namespace cusched::runtime;
  if (auto e = driver_available()) {
    std::cerr << e->message << "\n";
    if (f.json) {
      Error err;
      err.op = "device";
      err.code = "no-gpu";
      err.message = "No GPU is usable here: " + e->message;
      err.hint = "Run on a machine with an NVIDIA GPU and its driver.";
      std::cout << nlohmann::json({{"ok", false}, {"error", err.to_json()}}).dump(2) << "\n";
    }
    return kExitNoGpu;
  }
  try {
    DeviceInfo info = query_device(f.index);
    MemoryBandwidth bandwidth;
    if (!f.no_bandwidth) {
      GpuContext ctx(f.index);
      bandwidth = memory_bandwidth(ctx);
    }
    if (f.json) {
      nlohmann::json j = info.to_json();
      if (!f.no_bandwidth) {
        j["copy_bandwidth_gbs"] = bandwidth.copy / 1e9;
        j["read_bandwidth_gbs"] = bandwidth.read / 1e9;
        j["peak_bandwidth_gbs"] = bandwidth.peak / 1e9;
      }
      std::cout << j.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << "device " << info.index << ": " << info.name << "\n"
              << "  compute capability " << info.cc_major << "." << info.cc_minor << " (NVRTC target " << info.arch
              << ")\n"
              << "  SMs                 " << info.sm_count << "\n"
              << "  L2 cache            " << info.l2_bytes / (1024 * 1024) << " MiB\n"
              << "  shared memory       " << info.smem_per_block_optin / 1024 << " KiB per block (opt-in), "
              << info.smem_per_sm / 1024 << " KiB per SM\n"
              << "  memory              " << info.total_memory_bytes / (1024 * 1024 * 1024) << " GiB\n"
              << "  driver              CUDA " << info.driver_version / 1000 << "." << (info.driver_version % 1000) / 10
              << "\n";
    if (!f.no_bandwidth)
      std::cout << "  copy bandwidth      " << static_cast<int64_t>(bandwidth.copy / 1e9)
                << " GB/s (bytes read + written)\n"
                << "  read bandwidth      " << static_cast<int64_t>(bandwidth.read / 1e9)
                << " GB/s (a read-only stream)\n"
                << "  peak bandwidth      " << static_cast<int64_t>(bandwidth.peak / 1e9)
                << " GB/s (memory clock x bus width; 0: unknown or below the measured rates)\n";
    return kExitOk;
  } catch (const UserError& e) {
    std::cerr << "cusched device: " << e.error().to_string() << "\n";
    return e.error().code == "no-such-device" ? kExitUsage : kExitFailure;
  }
}

const CommandRegistration device_command{
    Command{"device", "Show the GPU: its SMs, L2, shared memory limit and measured copy and read bandwidth",
            [](CLI::App& sub) -> std::function<int()> {
              auto flags = std::make_shared<DeviceFlags>();
              sub.add_option("--index", flags->index, "CUDA device index")->check(CLI::NonNegativeNumber);
              sub.add_flag("--json", flags->json, "Print one JSON object");
              sub.add_flag("--no-bandwidth", flags->no_bandwidth, "Skip the copy-bandwidth measurement");
              return [flags] { return run_device(*flags); };
            }}};

}  // namespace
}  // namespace cusched::tools
