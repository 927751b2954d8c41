#!/bin/bash
# Session-3 device call A: per-launch times of LayerNorm, hand-written variants of
# softmax, sum_dim1, matmul and gemm_add_relu (pipelines), the GPU runtime tests.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
ls /usr/local/cuda/bin | grep -E '^(ncu|nsys)' > "$OUT/profilers.txt" 2>&1
{ cusched device; echo "== gpu_runtime_tests"; timeout 240 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -8; } > "$OUT/tests.log" 2>&1
for s in best; do
  timeout 120 cusched run -p layernorm -s $s --per-launch --no-audit > "$OUT/layernorm_$s.txt" 2>&1
done
VARIANTS="softmax matmul gemm_add_relu sum_dim1" bash bench/experiments/run_variants.sh > "$OUT/variants.txt" 2>&1
cat "$OUT/tests.log" | tail -12; cat "$OUT/profilers.txt"; grep -E "verdict|time|launch|floor" "$OUT/layernorm_best.txt"; cat "$OUT/variants.txt"
