#!/bin/bash
# The GPU suites (with the new GpuWgmma tests), then the wgmma
# matmul with one barrier per k-step (copies issued after the barrier), with launch bounds
# (256, 1) and with a 3-deep pipeline (wgmma/variants.py).
# Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/gpu_suites.sh 3 200 > "$OUT/tests.log" 2>&1
: > "$OUT/wgmma.txt"
python3 bench/experiments/wgmma/variants.py "$(command -v cusched)" /tmp best d3 lb
for n in best d3 lb; do
  bash bench/experiments/check_line.sh run matmul matmul_$n /tmp/matmul_$n.json >> "$OUT/wgmma.txt"
done
cat "$OUT/tests.log" "$OUT/wgmma.txt"
