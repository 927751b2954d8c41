#pragma once
// The device library that every kernel cusched generates includes. Header only,
// NVRTC-compatible (no host standard library), everything in namespace cusched.
//   cusched_numeric.cuh     special values, conversions, operand-precision rounding
//   cusched_math.cuh        math functions beyond CUDA's (sigmoid, softplus, sign, clamp) and fast forms
//   cusched_reduce.cuh      warp and block all-reductions (sum, product, min, max, argmin, argmax)
//   cusched_scan.cuh        warp and block exclusive scans (prefix sums and products)
//   cusched_cluster.cuh     all-reductions across the blocks of a thread-block cluster (sm_90)
//   cusched_mma.cuh         tensor-core mma.sync and ldmatrix wrappers
//   cusched_async_copy.cuh  cp.async 4- and 16-byte copies with commit / wait_group
//   cusched_copy.cuh        bulk copies (sm_90) tracked by mbarriers
//   cusched_launch.cuh      programmatic dependent launch: the kernel's first statements (sm_90)
//   cusched_wgmma.cuh       warpgroup tensor-core ordering and matrix descriptors (sm_90a)
//   cusched_l2.cuh          L2 eviction-priority policies and loads that carry them
#include "cusched_numeric.cuh"
#include "cusched_math.cuh"
#include "cusched_reduce.cuh"
#include "cusched_scan.cuh"
#include "cusched_cluster.cuh"
#include "cusched_mma.cuh"
#include "cusched_async_copy.cuh"
#include "cusched_copy.cuh"
#include "cusched_launch.cuh"
#include "cusched_wgmma.cuh"
#include "cusched_l2.cuh"
