#!/bin/bash
# Which of the fold's two changes to the max-pool kernel costs
# the 11% (maxpool_fold/: the load index's term order, the store index), twice each
# through `cusched check`. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/maxpool_fold/for_check.py /tmp/mpf
: > "$OUT/check.txt"
for round in 1 2; do
  for v in emitted_before_fold emitted_after_fold after_fold_base_first before_fold_store_folded; do
    bash bench/experiments/check_line.sh check maxpool2d f32 "maxpool2d_${v}_$round" /tmp/mpf/maxpool2d_$v.cu >> "$OUT/check.txt"
  done
done
cat "$OUT/check.txt"
