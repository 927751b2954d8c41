#!/bin/bash
# The max-pool kernel emitted before and after the
# quotient/remainder fold (maxpool_fold/), alternating, three times each through
# `cusched check`; LayerNorm's best three times. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/maxpool_fold/for_check.py /tmp/mpf
: > "$OUT/check.txt"
for round in 1 2 3; do
  for v in emitted_before_fold emitted_after_fold; do
    bash bench/experiments/check_line.sh check maxpool2d f32 "maxpool2d_${v}_$round" /tmp/mpf/maxpool2d_$v.cu >> "$OUT/check.txt"
  done
  bash bench/experiments/check_line.sh run layernorm "layernorm_best_$round" best >> "$OUT/check.txt"
done
cat "$OUT/check.txt"
