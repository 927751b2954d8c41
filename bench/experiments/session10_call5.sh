#!/bin/bash
# Session-10 device call 5: softmax's best schedule with its register tail (cache_read
# registers 2, launch bounds 256 x 8) through the side-by-side benchmark with the GPU
# suites (PyTorch eager and torch.compile in the same run), then `cusched run` twice more.
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
GPU_PROPERTY_COUNT=4 PROBLEMS="softmax" COMPILE_PROBLEMS="softmax" bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
source bench/gpu_env.sh
: > "$OUT/runs.txt"
for round in 1 2; do
  bash bench/experiments/check_line.sh run softmax "softmax_best_$round" best >> "$OUT/runs.txt"
done
tail -40 "$OUT/bench.txt"
cat "$OUT/runs.txt"
