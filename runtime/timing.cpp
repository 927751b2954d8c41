#include "runtime/timing.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>

#include "runtime/device_buffer.h"
#include "runtime/launch_sequence.h"
#include "runtime/nvrtc_compiler.h"

namespace cusched::runtime {

namespace {

class Event {
 public:
  Event() { check_cuda(driver().EventCreate(&e_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  ~Event() {
    if (!context_broken()) driver().EventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return e_; }

 private:
  CUevent e_ = nullptr;
};

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  check_cuda(driver().EventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
  return ms;
}

}  // namespace

// Grid-stride kernels over 16-byte elements: what a well-written memory-bound kernel can
// reach when it copies, and when it only reads (the sum is stored only if it is NaN,
// which it never is, so the loads stay and nothing is written).
const char* kBandwidthKernels = R"(
extern "C" __global__ void cusched_copy(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    dst[i] = src[i];
}
extern "C" __global__ void cusched_read(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n) {
  float acc = 0.f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float4 v = src[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc != acc) dst[0] = make_float4(acc, acc, acc, acc);
}
)";

MemoryBandwidth memory_bandwidth(const GpuContext& ctx) {
  static std::mutex mu;
  static std::map<int, MemoryBandwidth> measured;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = measured.find(ctx.index()); it != measured.end()) return it->second;

  const size_t bytes = size_t{512} << 20;
  DeviceBuffer src(bytes), dst(bytes);
  const CudaDriver& d = driver();
  check_cuda(d.MemsetD32Async(src.ptr(), 0x3f800000u, bytes / 4, ctx.stream()), "cuMemsetD32Async");

  CompileOptions options;
  options.arch = arch_for_compute_capability(ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                             ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  LoadedModule module(compile_cuda(kBandwidthKernels, {}, options, "cusched_bandwidth.cu").cubin);
  CUfunction copy = module.function("cusched_copy"), read = module.function("cusched_read");
  CUdeviceptr s = src.ptr(), t = dst.ptr();
  unsigned long long n = bytes / 16;
  void* params[] = {&s, &t, &n};
  const unsigned blocks = static_cast<unsigned>(ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) * 8;
  auto launch = [&](CUfunction f) {
    check_cuda(d.LaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, ctx.stream(), params, nullptr), "Launching a bandwidth kernel");
  };

  // About 50 ms of copies first, so that the measurement does not see idle clocks.
  for (int i = 0; i < 200; ++i) launch(copy);
  ctx.wait(30, "The bandwidth warm-up");

  // Each way timed 11 times with the first as warm-up; the best run counts.
  Event start, stop;
  auto best_ms = [&](const std::function<void()>& run) {
    float best = 0;
    for (int i = 0; i < 11; ++i) {
      check_cuda(d.EventRecord(start.get(), ctx.stream()), "cuEventRecord");
      run();
      check_cuda(d.EventRecord(stop.get(), ctx.stream()), "cuEventRecord");
      ctx.wait(30, "The bandwidth measurement");
      float ms = elapsed_ms(start, stop);
      if (i > 0 && (best == 0 || ms < best)) best = ms;
    }
    return best;
  };
  const float copy_ms = std::min(best_ms([&] { check_cuda(d.MemcpyDtoDAsync(t, s, bytes, ctx.stream()), "cuMemcpyDtoDAsync"); }),
                                 best_ms([&] { launch(copy); }));
  const float read_ms = best_ms([&] { launch(read); });
  MemoryBandwidth bw;
  bw.copy = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3);
  bw.read = static_cast<double>(bytes) / (read_ms * 1e-3);
  measured[ctx.index()] = bw;
  return bw;
}

std::vector<double> time_launch_sequence(const GpuContext& ctx, const std::function<void()>& enqueue,
                                         const TimingConfig& config, double watchdog_s,
                                         const std::function<void()>& progress) {
  const CudaDriver& d = driver();
  DeviceBuffer flush;
  if (config.flush_l2) {
    size_t l2 = static_cast<size_t>(std::max(ctx.attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 1 << 20));
    flush = DeviceBuffer(2 * l2);
  }
  for (int i = 0; i < config.warmup; ++i) {
    enqueue();
    ctx.wait(watchdog_s, "A warm-up run of the candidate");
  }
  Event start, stop;
  std::vector<double> times;
  for (int i = 0; i < config.repeats; ++i) {
    if (config.flush_l2)
      check_cuda(d.MemsetD32Async(flush.ptr(), static_cast<unsigned>(i), flush.bytes() / 4, ctx.stream()),
                 "cuMemsetD32Async (L2 flush)");
    check_cuda(d.EventRecord(start.get(), ctx.stream()), "cuEventRecord");
    enqueue();
    check_cuda(d.EventRecord(stop.get(), ctx.stream()), "cuEventRecord");
    ctx.wait(watchdog_s, "A timed run of the candidate");
    times.push_back(elapsed_ms(start, stop));
    if (progress) progress();
  }
  return times;
}

}  // namespace cusched::runtime
