#!/bin/bash
# Session-5 device call 3: the GPU suites (clusters of up to 16 blocks, copies shared
# with producers, the bandwidth kernels), then the second round of variants (softmax
# slices over clusters of 8 and 16, layernorm's row-loop normalise, conv2d's staged-once
# and CUDA-core tiles). Needs .carry/gpu. Writes gpu_tests.log, variants.txt, best_runs.jsonl.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 150 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=3 timeout 200 gpu_property_tests --gtest_brief=1 2>&1 | grep -E "Failure|Expected|Which is|FAILED|PASSED|clusters of" | head -30
} > "$OUT/gpu_tests.log" 2>&1
SKIP_TESTS=1 DEADLINE_S=${DEADLINE_S:-420} VARIANT_TIMEOUT=${VARIANT_TIMEOUT:-110} \
  VARIANTS="${VARIANTS:-softmax softmax_large layernorm conv2d}" \
  bash bench/experiments/session4_variants.sh > /dev/null 2>&1
cat "$OUT/gpu_tests.log"; cat "$OUT/variants.txt"
