#!/bin/bash
# Session-7 device call 14 (last): the GPU suites on the final code, then the wgmma
# problems' best schedules with the thread index declared from constants. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 100 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=2 timeout 100 gpu_property_tests --gtest_brief=1 2>&1 | tail -3
} > "$OUT/tests.log" 2>&1
: > "$OUT/runs.txt"
for p in matmul matmul_rect bmm gemm_add_relu gemm_gelu_softmax conv2d_relu_bias; do
  timeout 60 cusched run -p $p -s best --size bench --no-audit --json > /tmp/$p.json 2> /tmp/$p.err
  python3 bench/experiments/check_summary.py $p /tmp/$p.json /tmp/$p.err >> "$OUT/runs.txt"
done
cat "$OUT/tests.log" "$OUT/runs.txt"
