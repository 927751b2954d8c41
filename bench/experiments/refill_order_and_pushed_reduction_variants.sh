#!/bin/bash
# Text variants of emitted kernels through `cusched check`: the
# wgmma matmul with each k-step's refill copies issued after its wgmma instructions, or its
# fragments loaded before the copies (wgmma_check/emitted_variants.py); softmax with its
# cluster reductions pushed (cluster_push/emitted_variants.py). Writes $OUT/check.txt.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
mkdir -p /tmp/ev /tmp/cp
python3 bench/experiments/wgmma_check/emitted_variants.py /tmp/ev emitted copies_after_mma frags_first
python3 bench/experiments/cluster_push/emitted_variants.py softmax /tmp/cp
: > "$OUT/check.txt"
for round in 1 2; do
  for v in emitted copies_after_mma frags_first; do
    bash bench/experiments/check_line.sh check matmul tf32 "mm_${v}_$round" /tmp/ev/$v.cu >> "$OUT/check.txt"
  done
  for v in emitted push; do
    bash bench/experiments/check_line.sh check softmax f32 "softmax_${v}_$round" /tmp/cp/softmax_$v.cu >> "$OUT/check.txt"
  done
done
cat "$OUT/check.txt"
