#include "runtime/device_check.h"

#include <array>
#include <cstring>

#include "runtime/element_codec.h"
#include "runtime/runtime_kernels.h"

namespace cusched::runtime {

namespace {

// Indices into the array of 64-bit result slots the kernels share.
enum Slot : int {
  kPoisoned,
  kPoisonedFirst,
  kNonfinite,
  kNonfiniteFirst,
  kOutside,
  kOutsideFirst,
  kMaxAbs,
  kMaxRel,
  kDiffSq,
  kRefSq,
  kWorstDiff,
  kWorst,
  kRefMin,
  kRefMax,
  kRefSum,
  kRefNonfiniteFirst,
  kFirstDifference,
  kChecksum,
  kSlotCount
};

constexpr uint64_t kNone = ~uint64_t{0};

// Slots that take a minimum start at the largest value, the others at zero.
std::array<uint64_t, kSlotCount> initial_slots() {
  std::array<uint64_t, kSlotCount> s{};
  for (int i : {kPoisonedFirst, kNonfiniteFirst, kOutsideFirst, kWorst, kRefMin, kRefNonfiniteFirst, kFirstDifference})
    s[static_cast<size_t>(i)] = kNone;
  return s;
}

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// The inverse of the kernels' order-preserving key of a double.
double from_ordered_key(uint64_t key) {
  uint64_t bits = (key >> 63) ? (key & 0x7FFFFFFFFFFFFFFFull) : ~key;
  return as_double(bits);
}

int64_t index_or_none(uint64_t v) { return v == kNone ? -1 : static_cast<int64_t>(v); }

const char* const kSource = R"(
typedef unsigned long long u64;
typedef long long i64;

enum { kPoisoned, kPoisonedFirst, kNonfinite, kNonfiniteFirst, kOutside, kOutsideFirst,
       kMaxAbs, kMaxRel, kDiffSq, kRefSq, kWorstDiff, kWorst,
       kRefMin, kRefMax, kRefSum, kRefNonfiniteFirst, kFirstDifference, kChecksum };

__device__ __forceinline__ bool finite(double x) {
  return ((u64)__double_as_longlong(x) & 0x7FF0000000000000ull) != 0x7FF0000000000000ull;
}
__device__ __forceinline__ double magnitude(double x) { return x < 0 ? -x : x; }

__device__ __forceinline__ double half_value(unsigned short h) {
  unsigned exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float m;
  if (exp == 0) m = (float)mant * 5.9604644775390625e-8f;
  else if (exp == 31) m = __int_as_float(mant ? 0x7fc00000 : 0x7f800000);
  else m = __uint_as_float(((exp + 112u) << 23) | (mant << 13));
  return (h & 0x8000u) ? -(double)m : (double)m;
}

// dtype codes: 0 f32, 1 f64, 2 f16, 3 bf16, 4 i32, 5 i64, 6 bool
__device__ __forceinline__ double load(const void* p, int dtype, i64 i) {
  switch (dtype) {
    case 0: return (double)((const float*)p)[i];
    case 1: return ((const double*)p)[i];
    case 2: return half_value(((const unsigned short*)p)[i]);
    case 3: return (double)__uint_as_float((unsigned)((const unsigned short*)p)[i] << 16);
    case 4: return (double)((const int*)p)[i];
    case 5: return (double)((const i64*)p)[i];
    default: return ((const unsigned char*)p)[i] ? 1.0 : 0.0;
  }
}

// `poison`: one element's poison bit pattern, in the low bytes.
__device__ __forceinline__ bool poisoned(const void* p, int dtype, i64 i, u64 poison) {
  switch (dtype) {
    case 1: case 5: return ((const u64*)p)[i] == poison;
    case 2: case 3: return ((const unsigned short*)p)[i] == (unsigned short)poison;
    case 6: return ((const unsigned char*)p)[i] == (unsigned char)poison;
    default: return ((const unsigned*)p)[i] == (unsigned)poison;
  }
}

__device__ __forceinline__ u64 ordered_key(double x) {
  u64 b = (u64)__double_as_longlong(x);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

__device__ __forceinline__ u64 warp_sum(u64 v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ u64 warp_min(u64 v) {
  for (int o = 16; o > 0; o >>= 1) { u64 w = __shfl_xor_sync(0xffffffffu, v, o); v = w < v ? w : v; }
  return v;
}
__device__ __forceinline__ u64 warp_max(u64 v) {
  for (int o = 16; o > 0; o >>= 1) { u64 w = __shfl_xor_sync(0xffffffffu, v, o); v = w > v ? w : v; }
  return v;
}
// The largest of non-negative doubles (their bit patterns order alike).
__device__ __forceinline__ double warp_max_nonnegative(double v) {
  return __longlong_as_double((i64)warp_max((u64)__double_as_longlong(v)));
}
__device__ __forceinline__ bool lane0() { return (threadIdx.x & 31u) == 0; }
__device__ __forceinline__ i64 first_index() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ i64 stride() { return (i64)gridDim.x * blockDim.x; }

extern "C" __global__ void cusched_check_reference(const void* ref, int rdt, i64 n, u64* s) {
  u64 lo = ~0ull, hi = 0, nonfinite_first = ~0ull;
  double sum = 0;
  for (i64 i = first_index(); i < n; i += stride()) {
    double r = load(ref, rdt, i);
    if (!finite(r)) {
      if (nonfinite_first == ~0ull) nonfinite_first = (u64)i;
      continue;
    }
    u64 k = ordered_key(r);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
    sum += r;
  }
  lo = warp_min(lo);
  hi = warp_max(hi);
  nonfinite_first = warp_min(nonfinite_first);
  sum = warp_sum(sum);
  if (lane0()) {
    if (lo != ~0ull) atomicMin(&s[kRefMin], lo);
    if (hi != 0) atomicMax(&s[kRefMax], hi);
    if (nonfinite_first != ~0ull) atomicMin(&s[kRefNonfiniteFirst], nonfinite_first);
    if (sum != 0) atomicAdd((double*)&s[kRefSum], sum);
  }
}

extern "C" __global__ void cusched_check_output(const void* cand, int cdt, const void* ref, int rdt, i64 n,
                                                double atol, double rtol, int check_poison, u64 poison, u64* s) {
  u64 poison_count = 0, poison_first = ~0ull, nonfinite = 0, nonfinite_first = ~0ull, outside = 0, outside_first = ~0ull;
  double max_abs = 0, max_rel = 0, diff_sq = 0, ref_sq = 0, worst = 0;
  for (i64 i = first_index(); i < n; i += stride()) {
    if (check_poison && poisoned(cand, cdt, i, poison)) {
      if (poison_first == ~0ull) poison_first = (u64)i;
      ++poison_count;
      continue;
    }
    double v = load(cand, cdt, i);
    double r = load(ref, rdt, i);
    if (!finite(v)) {
      if (nonfinite_first == ~0ull) nonfinite_first = (u64)i;
      ++nonfinite;
      continue;
    }
    double d = magnitude(v - r);
    if (d > max_abs) max_abs = d;
    double ar = magnitude(r);
    if (ar > atol) { double q = d / ar; if (max_rel < q) max_rel = q; }
    diff_sq += d * d;
    ref_sq += r * r;
    if (!(d <= atol + rtol * ar)) {
      if (outside_first == ~0ull) outside_first = (u64)i;
      ++outside;
      if (d > worst) worst = d;
    }
  }
  poison_count = warp_sum(poison_count);
  poison_first = warp_min(poison_first);
  nonfinite = warp_sum(nonfinite);
  nonfinite_first = warp_min(nonfinite_first);
  outside = warp_sum(outside);
  outside_first = warp_min(outside_first);
  max_abs = warp_max_nonnegative(max_abs);
  max_rel = warp_max_nonnegative(max_rel);
  worst = warp_max_nonnegative(worst);
  diff_sq = warp_sum(diff_sq);
  ref_sq = warp_sum(ref_sq);
  if (lane0()) {
    if (poison_count) { atomicAdd(&s[kPoisoned], poison_count); atomicMin(&s[kPoisonedFirst], poison_first); }
    if (nonfinite) { atomicAdd(&s[kNonfinite], nonfinite); atomicMin(&s[kNonfiniteFirst], nonfinite_first); }
    if (outside) { atomicAdd(&s[kOutside], outside); atomicMin(&s[kOutsideFirst], outside_first); }
    if (max_abs > 0) atomicMax(&s[kMaxAbs], (u64)__double_as_longlong(max_abs));
    if (max_rel > 0) atomicMax(&s[kMaxRel], (u64)__double_as_longlong(max_rel));
    if (worst > 0) atomicMax(&s[kWorstDiff], (u64)__double_as_longlong(worst));
    if (diff_sq != 0) atomicAdd((double*)&s[kDiffSq], diff_sq);
    if (ref_sq != 0) atomicAdd((double*)&s[kRefSq], ref_sq);
  }
}

// The first element outside the tolerance whose |c - r| equals `worst`.
extern "C" __global__ void cusched_find_worst(const void* cand, int cdt, const void* ref, int rdt, i64 n,
                                              double atol, double rtol, double worst, u64* s) {
  u64 found = ~0ull;
  for (i64 i = first_index(); i < n; i += stride()) {
    double v = load(cand, cdt, i);
    if (!finite(v)) continue;
    double r = load(ref, rdt, i);
    double d = magnitude(v - r);
    if (!(d <= atol + rtol * magnitude(r)) && d == worst) { found = (u64)i; break; }
  }
  found = warp_min(found);
  if (lane0() && found != ~0ull) atomicMin(&s[kWorst], found);
}

extern "C" __global__ void cusched_first_difference(const unsigned char* a, const unsigned char* b, u64 bytes, u64* s) {
  // 8-byte words where both regions start on a word boundary; bytes otherwise (a guard
  // region after an odd-sized buffer), and for the tail after the last whole word.
  const bool words_aligned = ((((u64)a) | ((u64)b)) & 7) == 0;
  u64 words = words_aligned ? bytes / 8 : 0, found = ~0ull;
  for (i64 w = first_index(); w < (i64)words; w += stride()) {
    u64 x = ((const u64*)a)[w] ^ ((const u64*)b)[w];
    if (x) { found = (u64)w * 8 + (u64)(__ffsll((i64)x) - 1) / 8; break; }
  }
  for (i64 t = (i64)(words * 8) + first_index(); found == ~0ull && t < (i64)bytes; t += stride())
    if (a[t] != b[t]) found = (u64)t;
  found = warp_min(found);
  if (lane0() && found != ~0ull) atomicMin(&s[kFirstDifference], found);
}

__device__ __forceinline__ u64 mix(u64 x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27; x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

extern "C" __global__ void cusched_checksum(const unsigned char* p, u64 bytes, u64* s) {
  u64 words = bytes / 8, acc = 0;
  for (i64 w = first_index(); w < (i64)words; w += stride())
    acc += mix(((const u64*)p)[w] ^ ((u64)w * 0x9e3779b97f4a7c15ull));
  if (first_index() == 0 && words * 8 < bytes) {
    u64 last = 0;
    for (u64 t = words * 8; t < bytes; ++t) last |= (u64)p[t] << (8 * (t - words * 8));
    acc += mix(last ^ (words * 0x9e3779b97f4a7c15ull) ^ 0x5555555555555555ull);
  }
  acc = warp_sum(acc);
  if (lane0()) atomicAdd(&s[kChecksum], acc);
}
)";

}  // namespace

const std::string& device_check_source() {
  static const std::string source = kSource;
  return source;
}

struct DeviceChecker::Slots {
  std::array<uint64_t, kSlotCount> v;
  uint64_t operator[](int i) const { return v[static_cast<size_t>(i)]; }
};

DeviceChecker::DeviceChecker(const GpuContext& ctx, double watchdog_s)
    : ctx_(ctx),
      watchdog_s_(watchdog_s),
      module_(runtime_kernel_cubin(ctx, kSource, "cusched_device_check.cu")),
      reference_kernel_(module_.function("cusched_check_reference")),
      output_kernel_(module_.function("cusched_check_output")),
      worst_kernel_(module_.function("cusched_find_worst")),
      difference_kernel_(module_.function("cusched_first_difference")),
      checksum_kernel_(module_.function("cusched_checksum")),
      slots_(kSlotCount * sizeof(uint64_t)),
      max_blocks_(static_cast<unsigned>(ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) * 8) {}

DeviceChecker::Slots DeviceChecker::launch(CUfunction f, void** params, int64_t work_items,
                                           const std::string& what) const {
  const CudaDriver& d = driver();
  Slots s{initial_slots()};
  check_cuda(d.MemcpyHtoD(slots_.ptr(), s.v.data(), sizeof s.v), "Resetting the check's result slots");
  constexpr unsigned kThreads = 256;
  uint64_t wanted = (static_cast<uint64_t>(std::max<int64_t>(work_items, 1)) + kThreads - 1) / kThreads;
  unsigned blocks = static_cast<unsigned>(std::min<uint64_t>(wanted, max_blocks_));
  check_cuda(d.LaunchKernel(f, blocks, 1, 1, kThreads, 1, 1, 0, ctx_.stream(), params, nullptr), "Launching " + what);
  ctx_.wait(watchdog_s_, what);
  check_cuda(d.MemcpyDtoH(s.v.data(), slots_.ptr(), sizeof s.v), "Reading the check's results");
  return s;
}

double DeviceChecker::element_at(CUdeviceptr p, DType dtype, int64_t index) const {
  uint8_t raw[8] = {};
  size_t width = static_cast<size_t>(dtype_bytes(dtype));
  check_cuda(driver().MemcpyDtoH(raw, p + static_cast<size_t>(index) * width, width), "Reading one output element");
  return load_element(dtype, raw);
}

ReferenceStats DeviceChecker::reference_stats(CUdeviceptr reference, DType dtype, int64_t elements) const {
  ReferenceStats out;
  out.elements = elements;
  if (elements <= 0) return out;
  CUdeviceptr ref = reference, slots = slots_.ptr();
  int code = runtime_kernel_dtype_code(dtype);
  long long n = elements;
  void* params[] = {&ref, &code, &n, &slots};
  Slots s = launch(reference_kernel_, params, elements, "The device-side reference check");
  out.nonfinite_first = index_or_none(s[kRefNonfiniteFirst]);
  if (out.nonfinite_first >= 0) out.nonfinite_value = element_at(reference, dtype, out.nonfinite_first);
  out.min = s[kRefMin] == kNone ? 0 : from_ordered_key(s[kRefMin]);
  out.max = s[kRefMax] == 0 ? 0 : from_ordered_key(s[kRefMax]);
  out.sum = as_double(s[kRefSum]);
  return out;
}

OutputStats DeviceChecker::output_stats(CUdeviceptr candidate, DType candidate_dtype, CUdeviceptr reference,
                                        DType reference_dtype, int64_t elements, const Tolerance& tol,
                                        bool poisoned) const {
  OutputStats out;
  out.elements = elements;
  out.poison_checked = poisoned;
  if (elements <= 0) return out;
  CUdeviceptr cand = candidate, ref = reference, slots = slots_.ptr();
  int cdt = runtime_kernel_dtype_code(candidate_dtype), rdt = runtime_kernel_dtype_code(reference_dtype),
      check_poison = poisoned ? 1 : 0;
  long long n = elements;
  double atol = tol.atol, rtol = tol.rtol;
  unsigned long long poison = 0;  // the element's poison pattern, as output_check.h defines it
  fill_poison(candidate_dtype, &poison, 1);
  void* params[] = {&cand, &cdt, &ref, &rdt, &n, &atol, &rtol, &check_poison, &poison, &slots};
  Slots s = launch(output_kernel_, params, elements, "The device-side output check");
  out.poisoned = static_cast<int64_t>(s[kPoisoned]);
  out.poisoned_first = index_or_none(s[kPoisonedFirst]);
  if (out.poisoned) return out;  // as on the host, nothing else counts then
  out.nonfinite = static_cast<int64_t>(s[kNonfinite]);
  out.nonfinite_first = index_or_none(s[kNonfiniteFirst]);
  out.outside = static_cast<int64_t>(s[kOutside]);
  out.outside_first = index_or_none(s[kOutsideFirst]);
  out.max_abs_err = as_double(s[kMaxAbs]);
  out.max_rel_err = as_double(s[kMaxRel]);
  out.diff_sq = as_double(s[kDiffSq]);
  out.ref_sq = as_double(s[kRefSq]);
  if (out.outside > 0) {
    double worst = as_double(s[kWorstDiff]);
    out.worst = out.outside_first;  // when no difference is comparable (NaN), the first outside element
    if (worst > 0) {
      void* wparams[] = {&cand, &cdt, &ref, &rdt, &n, &atol, &rtol, &worst, &slots};
      Slots w = launch(worst_kernel_, wparams, elements, "The device-side search for the worst element");
      if (w[kWorst] != kNone) out.worst = static_cast<int64_t>(w[kWorst]);
    }
    out.worst_candidate = element_at(candidate, candidate_dtype, out.worst);
    out.worst_reference = element_at(reference, reference_dtype, out.worst);
  }
  return out;
}

int64_t DeviceChecker::first_difference(CUdeviceptr a, CUdeviceptr b, size_t bytes) const {
  if (bytes == 0) return -1;
  CUdeviceptr pa = a, pb = b, slots = slots_.ptr();
  unsigned long long n = bytes;
  void* params[] = {&pa, &pb, &n, &slots};
  Slots s = launch(difference_kernel_, params, static_cast<int64_t>(bytes / 8), "The device-side input comparison");
  return index_or_none(s[kFirstDifference]);
}

uint64_t DeviceChecker::checksum(CUdeviceptr p, size_t bytes) const {
  CUdeviceptr pp = p, slots = slots_.ptr();
  unsigned long long n = bytes;
  void* params[] = {&pp, &n, &slots};
  Slots s = launch(checksum_kernel_, params, static_cast<int64_t>(bytes / 8), "The device-side checksum");
  return s[kChecksum];
}

}  // namespace cusched::runtime
