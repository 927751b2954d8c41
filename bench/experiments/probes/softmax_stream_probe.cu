// Standalone timing probe (nvcc, no cusched): where softmax (4096, 65536) loses time against
// a copy. Each kernel moves X (1 GiB) to Y (1 GiB); they add softmax's structure one part
// at a time: a plain float4 copy; one 32 KiB row slice per block of 256 threads through
// registers or through shared memory; launched as clusters of 8 or not; with two cluster
// barriers between the load and the store; the whole softmax (block and cluster
// reductions, one value per block pushed to every block). Persistent forms loop over
// slices from a grid of co-resident blocks. L2 flushed before each run, median of 30.
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a softmax_stream_probe.cu -o softmax_stream_probe
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "probe_common.cuh"

constexpr int kRows = 4096, kCols = 65536, kSlice = 8192, kThreads = 256;
constexpr int kVecPerThread = kSlice / 4 / kThreads;  // 8 float4 per thread

__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ float* peer(float* p, unsigned rank) {
  unsigned long long r;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(reinterpret_cast<unsigned long long>(p)), "r"(rank));
  return reinterpret_cast<float*>(r);
}

__global__ void copy_flat(const float4* __restrict__ X, float4* __restrict__ Y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  Y[i] = X[i];
}

// One slice per block: slice s = row * 8 + blockIdx.x (the cluster rank along x).
enum Mode { kRegs = 0, kShared = 1, kSharedBarriers = 2, kSoftmax = 3 };

__device__ __forceinline__ float block_max(float v, float* red) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float t = red[0];
  for (int w = 1; w < kThreads / 32; ++w) t = fmaxf(t, red[w]);
  return t;
}

// The cluster's combination of each block's value: pushed into every block's slots, one
// cluster barrier; `parity` alternates the two slot sets.
template <bool Max>
__device__ __forceinline__ float cluster_combine(float v, float* slots, unsigned& parity) {
  float* own = slots + (parity & 1u) * 8;
  if (threadIdx.x < 8) *peer(own + cluster_rank(), threadIdx.x) = v;
  cluster_arrive();
  cluster_wait();
  float r = own[0];
  for (int b = 1; b < 8; ++b) r = Max ? fmaxf(r, own[b]) : r + own[b];
  ++parity;
  return r;
}

// The row's maximum and the reciprocal of its sum of exp, from this block's slice in
// shared memory, each combined over the block and then the cluster.
__device__ __forceinline__ float2 slice_statistics(const float* xs, float* red, float* max_slots, float* sum_slots,
                                                   unsigned& parity) {
  float m = -INFINITY;
  for (int c = 0; c < kVecPerThread; ++c) {
    const float4 x = *reinterpret_cast<const float4*>(&xs[c * 1024 + threadIdx.x * 4]);
    m = fmaxf(m, fmaxf(fmaxf(x.x, x.y), fmaxf(x.z, x.w)));
  }
  m = cluster_combine<true>(block_max(m, red), max_slots, parity);
  float s = 0.f;
  for (int c = 0; c < kVecPerThread; ++c) {
    const float4 x = *reinterpret_cast<const float4*>(&xs[c * 1024 + threadIdx.x * 4]);
    s += __expf(x.x - m) + __expf(x.y - m) + __expf(x.z - m) + __expf(x.w - m);
  }
  s = cluster_combine<false>(block_sum(s, red), sum_slots, parity);
  return make_float2(m, 1.f / s);
}

template <int M>
__device__ __forceinline__ void do_slice(const float* __restrict__ X, float* __restrict__ Y, long long base, float* xs,
                                         float* red, float* max_slots, float* sum_slots, unsigned& parity) {
  float4 v[kVecPerThread];
#pragma unroll
  for (int c = 0; c < kVecPerThread; ++c) v[c] = *reinterpret_cast<const float4*>(&X[base + c * 1024 + threadIdx.x * 4]);
  if constexpr (M == kRegs) {
#pragma unroll
    for (int c = 0; c < kVecPerThread; ++c) *reinterpret_cast<float4*>(&Y[base + c * 1024 + threadIdx.x * 4]) = v[c];
    return;
  }
#pragma unroll
  for (int c = 0; c < kVecPerThread; ++c) *reinterpret_cast<float4*>(&xs[c * 1024 + threadIdx.x * 4]) = v[c];
  __syncthreads();
  float m = 0.f, inv = 1.f;
  if (M == kSharedBarriers) {
    cluster_arrive();
    cluster_wait();
    cluster_arrive();
    cluster_wait();
  } else if (M == kSoftmax) {
    const float2 st = slice_statistics(xs, red, max_slots, sum_slots, parity);
    m = st.x;
    inv = st.y;
  }
#pragma unroll
  for (int c = 0; c < kVecPerThread; ++c) {
    float4 x = *reinterpret_cast<const float4*>(&xs[c * 1024 + threadIdx.x * 4]);
    if (M == kSoftmax) x = make_float4(__expf(x.x - m) * inv, __expf(x.y - m) * inv, __expf(x.z - m) * inv, __expf(x.w - m) * inv);
    *reinterpret_cast<float4*>(&Y[base + c * 1024 + threadIdx.x * 4]) = x;
  }
  if (M != kRegs) __syncthreads();
}

// grid (8, rows_per_pass): block (rank, r) handles slices of rows r, r + gridDim.y, ...
template <int M>
__global__ void __launch_bounds__(kThreads) slices(const float* __restrict__ X, float* __restrict__ Y) {
  __shared__ __align__(16) float xs[M == kRegs ? 4 : kSlice];
  __shared__ float red[kThreads / 32];
  __shared__ float max_slots[16], sum_slots[16];
  unsigned parity = 0;
  for (int row = blockIdx.y; row < kRows; row += gridDim.y)
    do_slice<M>(X, Y, static_cast<long long>(row) * kCols + blockIdx.x * kSlice, xs, red, max_slots, sum_slots, parity);
  if (M == kSoftmax) {  // no block leaves while a peer may still push into its slots
    cluster_arrive();
    cluster_wait();
  }
}

__device__ __forceinline__ void issue_slice(const float* X, long long base, float* xs) {
#pragma unroll
  for (int c = 0; c < kVecPerThread; ++c) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&xs[c * 1024 + threadIdx.x * 4]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(__cvta_generic_to_global(&X[base + c * 1024 + threadIdx.x * 4])) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// Persistent softmax with the next row's slice copied (cp.async) into a second buffer while
// the current one is reduced and written: 64 KiB of dynamic shared memory per block.
__global__ void __launch_bounds__(kThreads) softmax_prefetch(const float* __restrict__ X, float* __restrict__ Y) {
  extern __shared__ float4 dynamic_smem[];
  float* buffers = reinterpret_cast<float*>(dynamic_smem);
  __shared__ float red[kThreads / 32];
  __shared__ float max_slots[16], sum_slots[16];
  unsigned parity = 0;
  int it = 0;
  if (blockIdx.y < kRows) issue_slice(X, static_cast<long long>(blockIdx.y) * kCols + blockIdx.x * kSlice, buffers);
  for (int row = blockIdx.y; row < kRows; row += gridDim.y, ++it) {
    float* xs = buffers + (it & 1) * kSlice;
    const int next = row + gridDim.y;
    if (next < kRows) issue_slice(X, static_cast<long long>(next) * kCols + blockIdx.x * kSlice, buffers + ((it + 1) & 1) * kSlice);
    else asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    const long long base = static_cast<long long>(row) * kCols + blockIdx.x * kSlice;
    const float2 st = slice_statistics(xs, red, max_slots, sum_slots, parity);
    const float m = st.x, inv = st.y;
#pragma unroll
    for (int c = 0; c < kVecPerThread; ++c) {
      const float4 x = *reinterpret_cast<const float4*>(&xs[c * 1024 + threadIdx.x * 4]);
      *reinterpret_cast<float4*>(&Y[base + c * 1024 + threadIdx.x * 4]) =
          make_float4(__expf(x.x - m) * inv, __expf(x.y - m) * inv, __expf(x.z - m) * inv, __expf(x.w - m) * inv);
    }
    __syncthreads();
  }
  cluster_arrive();
  cluster_wait();
}

template <int T>
__device__ __forceinline__ float block_reduce(float v, float* red, bool is_max) {
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float t = red[0];
#pragma unroll
  for (int w = 1; w < T / 32; ++w) t = is_max ? fmaxf(t, red[w]) : t + red[w];
  return t;
}

// Softmax over clusters of 8 blocks of T threads, each block's 32 KiB slice held partly in
// shared memory (the first V - R float4 of each thread) and partly in registers (the last
// R): less shared memory per block lets more blocks reside on a multiprocessor.
template <int T, int R, int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks) softmax_hybrid(const float* __restrict__ X, float* __restrict__ Y) {
  constexpr int V = kSlice / 4 / T, S = V - R;
  __shared__ __align__(16) float xs[S > 0 ? S * T * 4 : 4];
  __shared__ float red[T / 32];
  __shared__ float max_slots[16], sum_slots[16];
  unsigned parity = 0;
  const long long base = static_cast<long long>(blockIdx.y) * kCols + blockIdx.x * kSlice;
  float4 rv[R > 0 ? R : 1];
#pragma unroll
  for (int c = 0; c < V; ++c) {
    const float4 v = *reinterpret_cast<const float4*>(&X[base + c * T * 4 + threadIdx.x * 4]);
    if (c < S) *reinterpret_cast<float4*>(&xs[c * T * 4 + threadIdx.x * 4]) = v;
    else rv[c - S] = v;
  }
  __syncthreads();
  auto at = [&](int c) { return c < S ? *reinterpret_cast<const float4*>(&xs[c * T * 4 + threadIdx.x * 4]) : rv[c - S]; };
  float m = -INFINITY;
#pragma unroll
  for (int c = 0; c < V; ++c) {
    const float4 x = at(c);
    m = fmaxf(m, fmaxf(fmaxf(x.x, x.y), fmaxf(x.z, x.w)));
  }
  m = cluster_combine<true>(block_reduce<T>(m, red, true), max_slots, parity);
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < V; ++c) {
    const float4 x = at(c);
    s += __expf(x.x - m) + __expf(x.y - m) + __expf(x.z - m) + __expf(x.w - m);
  }
  s = cluster_combine<false>(block_reduce<T>(s, red, false), sum_slots, parity);
  const float inv = 1.f / s;
#pragma unroll
  for (int c = 0; c < V; ++c) {
    const float4 x = at(c);
    *reinterpret_cast<float4*>(&Y[base + c * T * 4 + threadIdx.x * 4]) =
        make_float4(__expf(x.x - m) * inv, __expf(x.y - m) * inv, __expf(x.z - m) * inv, __expf(x.w - m) * inv);
  }
  cluster_arrive();
  cluster_wait();
}

template <typename K>
float time_kernel(K kernel, const float* X, float* Y, int rows_per_pass, int cluster, size_t smem, void* flush, size_t flush_bytes) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(8, rows_per_pass, 1);
  cfg.blockDim = dim3(kThreads, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return median_ms([&] { cudaLaunchKernelEx(&cfg, kernel, X, Y); }, flush, flush_bytes);
}

template <int M>
float time_slices(const float* X, float* Y, int rows_per_pass, int cluster, void* flush, size_t flush_bytes) {
  return time_kernel(slices<M>, X, Y, rows_per_pass, cluster, 0, flush, flush_bytes);
}

int main() {
  const size_t n = static_cast<size_t>(kRows) * kCols, bytes = n * sizeof(float), flush_bytes = 512u << 20;
  float *X, *Y;
  void* flush;
  cudaMalloc(&X, bytes);
  cudaMalloc(&Y, bytes);
  cudaMalloc(&flush, flush_bytes);
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.f;
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  int resident = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, slices<kShared>, kThreads, 0);
  printf("resident blocks per SM (shared slice): %d\n", resident);
  const double gb = 2.0 * bytes / 1e9;
  auto report = [&](const char* name, float ms) { printf("%-52s %.4f ms  %.0f GB/s\n", name, ms, gb / ms * 1e3); };
  auto row_sum = [&](int r) {
    cudaMemcpy(h.data(), Y + static_cast<size_t>(r) * kCols, kCols * sizeof(float), cudaMemcpyDeviceToHost);
    double t = 0;
    for (int j = 0; j < kCols; ++j) t += h[j];
    return t;
  };
  report("copy, one float4 per thread", median_ms([&] { copy_flat<<<n / 4 / 256, 256>>>(reinterpret_cast<const float4*>(X), reinterpret_cast<float4*>(Y)); }, flush, flush_bytes));
  report("slice via registers, no cluster", time_slices<kRegs>(X, Y, kRows, 1, flush, flush_bytes));
  report("slice via registers, clusters of 8", time_slices<kRegs>(X, Y, kRows, 8, flush, flush_bytes));
  report("slice via shared, no cluster", time_slices<kShared>(X, Y, kRows, 1, flush, flush_bytes));
  report("slice via shared, clusters of 8", time_slices<kShared>(X, Y, kRows, 8, flush, flush_bytes));
  report("slice via shared, clusters of 8, two barriers", time_slices<kSharedBarriers>(X, Y, kRows, 8, flush, flush_bytes));
  report("softmax, clusters of 8", time_slices<kSoftmax>(X, Y, kRows, 8, flush, flush_bytes));
  printf("rows 0 and %d sum to %.6f, %.6f\n", kRows - 1, row_sum(0), row_sum(kRows - 1));
  auto hybrid = [&](auto kernel, int threads, int in_registers, const char* bounds) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, kernel);
    char name[120];
    snprintf(name, sizeof name, "hybrid %dx%d, %d of %d float4 in registers, %s: %d regs, %d/SM", 8, threads, in_registers,
             kSlice / 4 / threads, bounds, a.numRegs, per_sm);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8, kRows, 1);
    cfg.blockDim = dim3(threads, 1, 1);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim = {8, 1, 1};
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    report(name, median_ms([&] { cudaLaunchKernelEx(&cfg, kernel, X, Y); }, flush, flush_bytes));
    printf("rows 0 and %d sum to %.6f, %.6f; %s\n", kRows - 1, row_sum(0), row_sum(kRows - 1), cudaGetErrorString(cudaGetLastError()));
  };
  for (int round = 0; round < 2; ++round) {
    hybrid(softmax_hybrid<256, 0, 1>, 256, 0, "bounds 1");
    hybrid(softmax_hybrid<256, 1, 7>, 256, 1, "bounds 7");
    hybrid(softmax_hybrid<256, 2, 8>, 256, 2, "bounds 8");
    hybrid(softmax_hybrid<128, 0, 1>, 128, 0, "bounds 1");
    hybrid(softmax_hybrid<128, 2, 7>, 128, 2, "bounds 7");
    hybrid(softmax_hybrid<128, 4, 9>, 128, 4, "bounds 9");
    hybrid(softmax_hybrid<128, 6, 10>, 128, 6, "bounds 10");
    hybrid(softmax_hybrid<128, 8, 8>, 128, 8, "bounds 8");
    hybrid(softmax_hybrid<512, 1, 3>, 512, 1, "bounds 3");
  }
  const size_t two_slices = 2 * kSlice * sizeof(float);
  cudaFuncSetAttribute(softmax_prefetch, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(two_slices));
  {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8, kRows, 1);
    cfg.blockDim = dim3(kThreads, 1, 1);
    cfg.dynamicSmemBytes = two_slices;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim = {8, 1, 1};
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    cudaOccupancyMaxActiveClusters(&clusters, softmax_prefetch, &cfg);
    printf("co-resident clusters of 8 with two slices per block: %d\n", clusters);
    cfg.dynamicSmemBytes = 0;
    cudaOccupancyMaxActiveClusters(&clusters, slices<kSoftmax>, &cfg);
    printf("co-resident clusters of 8 with one slice per block: %d\n", clusters);
  }
  for (int per_pass : {4096, 96, 48, 40}) {
    char name[96];
    snprintf(name, sizeof name, "softmax, next slice prefetched, %d rows per pass", per_pass);
    report(name, time_kernel(softmax_prefetch, X, Y, per_pass, 8, two_slices, flush, flush_bytes));
    printf("rows 0 and %d sum to %.6f, %.6f\n", kRows - 1, row_sum(0), row_sum(kRows - 1));
  }
  for (int per_pass : {1024, 512, 256, 128, 112}) {
    char name[96];
    snprintf(name, sizeof name, "persistent %d rows per pass: shared, no cluster", per_pass);
    report(name, time_slices<kShared>(X, Y, per_pass, 1, flush, flush_bytes));
    snprintf(name, sizeof name, "persistent %d rows per pass: softmax", per_pass);
    report(name, time_slices<kSoftmax>(X, Y, per_pass, 8, flush, flush_bytes));
  }
  printf("rows 0 and %d of the last softmax sum to %.6f, %.6f; %s\n", kRows - 1, row_sum(0), row_sum(kRows - 1),
         cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
