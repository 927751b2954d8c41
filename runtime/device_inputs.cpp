#include "runtime/device_inputs.h"

#include "runtime/launch_sequence.h"
#include "runtime/runtime_kernels.h"

namespace cusched::runtime {

namespace {

// input_generator.cpp's streams and stores, one element pair per thread and step (compiled
// with runtime_kernel_options, so that the double arithmetic rounds as the host's does).
const char* const kGeneratorSource = R"(
typedef unsigned long long u64;
typedef long long i64;

__device__ __forceinline__ u64 splitmix64(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
__device__ __forceinline__ u64 stream(u64 seed, u64 counter) { return splitmix64(seed + counter * 0x9e3779b97f4a7c15ULL); }
__device__ __forceinline__ double unit(u64 seed, u64 counter) {
  return ((double)(stream(seed, counter) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Round to nearest even of a finite float to IEEE half bits (infinities kept).
__device__ unsigned short half_bits(float f) {
  unsigned x = __float_as_uint(f), sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  if (exp == 0xffu) return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    mant |= 0x800000u;
    unsigned shift = (unsigned)(14 - e), half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return (unsigned short)(sign | half);
  }
  unsigned half = sign | ((unsigned)e << 10) | (mant >> 13), rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return (unsigned short)half;
}
__device__ unsigned short bf16_bits(float f) {
  unsigned x = __float_as_uint(f);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) return (unsigned short)((x >> 16) | 0x40u);
  return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// dtype codes: runtime_kernel_dtype_code
__device__ void store(void* out, int dtype, i64 i, double v) {
  switch (dtype) {
    case 0: ((float*)out)[i] = (float)v; return;
    case 1: ((double*)out)[i] = v; return;
    case 2: ((unsigned short*)out)[i] = half_bits((float)v); return;
    case 3: ((unsigned short*)out)[i] = bf16_bits((float)v); return;
    case 4: ((int*)out)[i] = (int)llround(v); return;
    case 5: ((i64*)out)[i] = llround(v); return;
    default: ((unsigned char*)out)[i] = v != 0.0 ? 1 : 0; return;
  }
}

// kind: 0 normal (a mean, b standard deviation), 1 uniform [a, b), 2 randint [a, b].
extern "C" __global__ void cusched_generate(void* out, int dtype, int kind, double a, double b, u64 seed, i64 n) {
  const i64 pairs = (n + 1) / 2;
  for (i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += (i64)gridDim.x * blockDim.x) {
    const i64 i = 2 * p;
    double v[2];
    if (kind == 0) {
      const float u1 = (float)(((double)(stream(seed, i) >> 40) + 0.5) * (1.0 / 16777216.0));
      const float u2 = (float)(stream(seed, i + 1) >> 40) * (1.0f / 16777216.0f);
      const float r = sqrtf(-2.0f * logf(u1)), angle = 6.2831853f * u2;
      v[0] = a + b * (double)(r * cosf(angle));
      v[1] = a + b * (double)(r * sinf(angle));
    } else {
      for (int k = 0; k < 2; ++k) {
        const double u = unit(seed, i + k);
        if (kind == 1) {
          v[k] = a + (b - a) * u;
        } else {
          const double lo = ceil(a), hi = floor(b);
          v[k] = fmin(hi, lo + floor(u * (hi - lo + 1)));
        }
      }
    }
    store(out, dtype, i, v[0]);
    if (i + 1 < n) store(out, dtype, i + 1, v[1]);
  }
}
)";

}  // namespace

const std::string& device_inputs_source() {
  static const std::string source = kGeneratorSource;
  return source;
}

DeviceTensors device_trial_inputs(const EvalRequest& req, const TrialPlan& plan, const GpuContext& ctx) {
  DeviceTensors out;
  const auto sources = trial_input_sources(req, plan);
  std::unique_ptr<LoadedModule> module;
  CUfunction generate = nullptr;
  const unsigned blocks = static_cast<unsigned>(ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) * 16;
  for (const auto& src : sources) {
    const BufferSpec& b = *src.buffer;
    DeviceBuffer buf(static_cast<size_t>(b.bytes()));
    if (!src.npy_path.empty()) {
      buf.upload(read_input_file(src));
    } else {
      check_distribution(b, src.distribution);
      if (!module) {
        module =
            std::make_unique<LoadedModule>(runtime_kernel_cubin(ctx, kGeneratorSource, "cusched_device_inputs.cu"));
        generate = module->function("cusched_generate");
      }
      const auto& d = src.distribution;
      CUdeviceptr ptr = buf.ptr();
      int dtype = runtime_kernel_dtype_code(b.dtype), kind = d.kind == "uniform" ? 1 : d.kind == "randint" ? 2 : 0;
      double lo = d.a, hi = d.b;
      unsigned long long seed = src.seed;
      long long n = b.elements();
      void* params[] = {&ptr, &dtype, &kind, &lo, &hi, &seed, &n};
      check_cuda(driver().LaunchKernel(generate, blocks, 1, 1, 256, 1, 1, 0, ctx.stream(), params, nullptr),
                 "Launching the input generator for '" + b.name + "'");
    }
    out.emplace(b.name, std::move(buf));
  }
  if (module) ctx.wait(req.watchdog_s, "The input generator");
  return out;
}

HostTensors downloaded(const DeviceTensors& buffers) {
  HostTensors out;
  for (const auto& [name, buf] : buffers) out.emplace(name, buf.download());
  return out;
}

}  // namespace cusched::runtime
