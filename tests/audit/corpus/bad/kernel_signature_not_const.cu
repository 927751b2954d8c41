// expect: kernel-signature
// contract: {"kernel_name": "k", "params": [{"name": "A", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}]}
#include "cusched_device.cuh"
extern "C" __global__ void k(float* __restrict__ A, float* __restrict__ C) { C[threadIdx.x] = A[threadIdx.x]; }
