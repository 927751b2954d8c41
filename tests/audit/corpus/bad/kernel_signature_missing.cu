// expect: kernel-signature
// contract: {"kernel_name": "matmul", "params": [{"name": "A", "type": "const float*"}, {"name": "C", "type": "float*", "is_output": true}]}
// The kernel has the wrong name and C++ linkage.
#include "cusched_device.cuh"
__global__ void matmul_v2(const float* __restrict__ A, float* __restrict__ C) { C[threadIdx.x] = A[threadIdx.x]; }
