#!/bin/bash
# Session-3 device call B: the GPU test suites (runtime, random schedules incl. tensor
# cores, ldmatrix, cache_write shared, 16-byte and bulk pipelines) and the variants.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 200 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -4
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=${GPU_PROPERTY_COUNT:-12} timeout 300 gpu_property_tests --gtest_brief=1 2>&1 | tail -12
} > "$OUT/tests.log" 2>&1
VARIANTS=${VARIANTS:-"matmul gemm_add_relu sum_dim1"} bash bench/experiments/run_variants.sh > "$OUT/variants.txt" 2>&1
cat "$OUT/tests.log"; cat "$OUT/variants.txt"
