// expect: ptxas-resources
// ptxas-log: ptxas_resources.log
#include "cusched_device.cuh"
extern "C" __global__ void k(const float* __restrict__ A, float* __restrict__ C) { C[threadIdx.x] = A[threadIdx.x]; }
