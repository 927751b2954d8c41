#!/bin/bash
# Session-7 device call 8: variants of the generated wgmma matmul kernel through
# `cusched check`, to find what makes it slower than the hand probe: A registers as
# plain inputs, without the held registers, and in blocks of 256 x 1 threads.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
: > "$OUT/check.txt"
for f in gen_unsigned_tid; do
  timeout 90 cusched check -p matmul --size bench --no-audit --precision tf32 bench/experiments/wgmma_check/$f.cu > /tmp/$f.json 2> /tmp/$f.err
  python3 bench/experiments/check_summary.py $f /tmp/$f.json /tmp/$f.err >> "$OUT/check.txt"
done
cat "$OUT/check.txt"
