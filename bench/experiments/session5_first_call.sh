#!/bin/bash
# The first device call for the next session (written at the end of session 4): checks
# what session 4 could not run on the GPU. The new floor (read and write bandwidth after
# a warm-up): `cusched device` and gpu_runtime_tests' floor tests, then the five rows that
# the old floor labelled under_floor, run as best schedules; the float4 cluster-softmax
# variants; PyTorch for the three problems without numbers. Needs .carry/gpu from
# bench/prepare_gpu_carry.sh. Writes gpu_tests.log, variants.txt, table.md under $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  cusched device
  echo "== gpu_runtime_tests"; timeout 200 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -4
} > "$OUT/gpu_tests.log" 2>&1
SKIP_TESTS=1 VARIANTS="softmax softmax_large" DEADLINE_S=200 bash bench/experiments/session4_variants.sh > /dev/null 2>&1
SKIP_TESTS=1 PROBLEMS="matvec mse_loss argmax_dim1 relu_large gelu_large conv2d conv2d_relu_bias maxpool2d" \
  COMPILE_PROBLEMS="conv2d conv2d_relu_bias maxpool2d" bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
cat "$OUT/gpu_tests.log" "$OUT/variants.txt"; tail -14 "$OUT/table.md"
