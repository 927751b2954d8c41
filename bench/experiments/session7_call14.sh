#!/bin/bash
# Session-7 device call 14 (last): the GPU suites on the final code, then the wgmma
# problems' best schedules. Not run: the session's device time was spent. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/gpu_suites.sh 2 100 > "$OUT/tests.log" 2>&1
: > "$OUT/runs.txt"
for p in matmul matmul_rect bmm gemm_add_relu gemm_gelu_softmax conv2d_relu_bias; do
  bash bench/experiments/check_line.sh run $p $p best >> "$OUT/runs.txt"
done
cat "$OUT/tests.log" "$OUT/runs.txt"
