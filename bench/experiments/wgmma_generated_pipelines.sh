#!/bin/bash
# The GPU suites, then the generated wgmma matmul (tensor_core
# m64nNk8) at the bench size: pipelined 4 and 3 deep (one k-step in flight) and without a
# pipeline (each k-step waits), through `cusched run` (wgmma/variants.py; the call itself ran
# the same schedules written by hand, with other loop names). Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/gpu_suites.sh 4 150 > "$OUT/tests.log" 2>&1
: > "$OUT/wgmma.txt"
python3 bench/experiments/wgmma/variants.py "$(command -v cusched)" /tmp best d3 nopipe
for n in best d3 nopipe; do
  bash bench/experiments/check_line.sh run matmul matmul_$n /tmp/matmul_$n.json >> "$OUT/wgmma.txt"
  cusched lower -p matmul -s /tmp/matmul_$n.json --size bench --emit cuda > "$OUT/matmul_$n.cu" 2>&1
done
cat "$OUT/tests.log" "$OUT/wgmma.txt"
