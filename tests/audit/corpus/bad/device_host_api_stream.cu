// expect: device-host-api
// Times itself on a second stream through the device runtime.
#include "cusched_device.cuh"
extern "C" __device__ int cudaStreamCreateWithFlags(void** stream, unsigned flags);
extern "C" __device__ int cudaEventRecord(void* event, void* stream);
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) {
  void* s = nullptr;
  if (threadIdx.x == 0) {
    cudaStreamCreateWithFlags(&s, 1);
    cudaEventRecord(nullptr, s);
  }
  C[threadIdx.x] = A[threadIdx.x];
}
