#include "runtime/timing.h"

#include <algorithm>
#include <chrono>
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
// which it never is, so the loads stay and nothing is written). UNROLL independent
// loads per thread and iteration keep more bytes in flight; each rate is the best over
// the unroll factors (and, for reads, over one stream and two at once).
const char* kBandwidthKernels = R"(
template <int UNROLL>
__device__ void copy_stream(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}
template <int UNROLL>
__device__ void read_stream(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n; i += stride) acc += src[i].x + src[i].y + src[i].z + src[i].w;
  if (acc != acc) dst[0] = make_float4(acc, acc, acc, acc);
}
// Two streams at once, from the buffer's two halves (as a kernel that reads two inputs).
template <int UNROLL>
__device__ void read_two_streams(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n) {
  const unsigned long long half = n / 2, stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + (UNROLL - 1) * stride < half; i += UNROLL * stride) {
    float4 v[2 * UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      v[2 * u] = src[i + u * stride];
      v[2 * u + 1] = src[half + i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < 2 * UNROLL; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < half; i += stride) acc += src[i].x + src[half + i].w;
  if (acc != acc) dst[0] = make_float4(acc, acc, acc, acc);
}
extern "C" __global__ void cusched_copy1(const float4* s, float4* d, unsigned long long n) { copy_stream<1>(s, d, n); }
extern "C" __global__ void cusched_copy4(const float4* s, float4* d, unsigned long long n) { copy_stream<4>(s, d, n); }
extern "C" __global__ void cusched_read1(const float4* s, float4* d, unsigned long long n) { read_stream<1>(s, d, n); }
extern "C" __global__ void cusched_read4(const float4* s, float4* d, unsigned long long n) { read_stream<4>(s, d, n); }
extern "C" __global__ void cusched_read8(const float4* s, float4* d, unsigned long long n) { read_stream<8>(s, d, n); }
extern "C" __global__ void cusched_read2x4(const float4* s, float4* d, unsigned long long n) { read_two_streams<4>(s, d, n); }
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
  CUfunction copy1 = module.function("cusched_copy1"), copy4 = module.function("cusched_copy4");
  CUfunction read1 = module.function("cusched_read1"), read4 = module.function("cusched_read4"),
             read8 = module.function("cusched_read8"), read2x4 = module.function("cusched_read2x4");
  CUdeviceptr s = src.ptr(), t = dst.ptr();
  unsigned long long n = bytes / 16;
  void* params[] = {&s, &t, &n};
  const unsigned blocks = static_cast<unsigned>(ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) * 8;
  auto launch = [&](CUfunction f) {
    check_cuda(d.LaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, ctx.stream(), params, nullptr),
               "Launching a bandwidth kernel");
  };

  // About 50 ms of copies first, so that the measurement does not see idle clocks.
  for (int i = 0; i < 200; ++i) launch(copy1);
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
  const float copy_ms =
      std::min({best_ms([&] { check_cuda(d.MemcpyDtoDAsync(t, s, bytes, ctx.stream()), "cuMemcpyDtoDAsync"); }),
                best_ms([&] { launch(copy1); }), best_ms([&] { launch(copy4); })});
  const float read_ms = std::min({best_ms([&] { launch(read1); }), best_ms([&] { launch(read4); }),
                                  best_ms([&] { launch(read8); }), best_ms([&] { launch(read2x4); })});
  MemoryBandwidth bw;
  bw.copy = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3);
  bw.read = static_cast<double>(bytes) / (read_ms * 1e-3);
  // Double data rate: two transfers per clock over the bus. Kept only when it is above
  // both measured rates (a peak below a measurement means the attributes mislead).
  const double peak = 2.0 * ctx.attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3 *
                      ctx.attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8.0;
  if (peak >= bw.copy && peak >= bw.read) bw.peak = peak;
  measured[ctx.index()] = bw;
  return bw;
}

std::vector<double> time_launch_sequence(const GpuContext& ctx, const std::function<void()>& enqueue,
                                         const TimingConfig& config, double watchdog_s,
                                         const std::function<void()>& progress) {
  TimedRunHooks hooks;
  hooks.enqueue = [&](int) { enqueue(); };
  return time_runs(ctx, hooks, config, watchdog_s, progress);
}

std::vector<double> time_runs(const GpuContext& ctx, const TimedRunHooks& hooks, const TimingConfig& config,
                              double watchdog_s, const std::function<void()>& progress) {
  const CudaDriver& d = driver();
  DeviceBuffer flush;
  if (config.flush_l2) {
    size_t l2 = static_cast<size_t>(std::max(ctx.attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 1 << 20));
    flush = DeviceBuffer(2 * l2);
  }
  int run = 0;
  const auto warm_start = std::chrono::steady_clock::now();
  for (int i = 0; i < config.warmup; ++i, ++run) {
    if (hooks.prepare) hooks.prepare(run);
    hooks.enqueue(run);
    ctx.wait(watchdog_s, "A warm-up run of the candidate");
    const double warm_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warm_start).count();
    if (config.budget_ms > 0 && warm_ms > config.budget_ms / 10) {
      ++run;
      break;
    }
  }
  Event start, stop;
  std::vector<double> times;
  double total_ms = 0;
  for (int i = 0; i < config.repeats; ++i, ++run) {
    if (hooks.prepare) hooks.prepare(run);
    if (config.flush_l2)
      check_cuda(d.MemsetD32Async(flush.ptr(), static_cast<unsigned>(i), flush.bytes() / 4, ctx.stream()),
                 "cuMemsetD32Async (L2 flush)");
    check_cuda(d.EventRecord(start.get(), ctx.stream()), "cuEventRecord");
    hooks.enqueue(run);
    check_cuda(d.EventRecord(stop.get(), ctx.stream()), "cuEventRecord");
    ctx.wait(watchdog_s, "A timed run of the candidate");
    times.push_back(elapsed_ms(start, stop));
    if (progress) progress();
    if (hooks.check && !hooks.check(run)) break;
    if (i == 0 && config.cut_ms > 0 && times[0] > config.cut_ms) break;
    total_ms += times.back();
    if (config.budget_ms > 0 && i + 1 >= config.min_repeats && total_ms > config.budget_ms) break;
  }
  return times;
}

}  // namespace cusched::runtime
