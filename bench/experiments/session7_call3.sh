#!/bin/bash
# Session-7 device call 3: the GPU suites, then the generated wgmma matmul (tensor_core
# m64nNk8) at the bench size: pipelined 4 and 3 deep (one k-step in flight) and without a
# pipeline (each k-step waits), through `cusched run`. Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 150 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=4 timeout 150 gpu_property_tests --gtest_brief=1 2>&1 | tail -3
} > "$OUT/tests.log" 2>&1
: > "$OUT/wgmma.txt"
for f in bench/experiments/wgmma/*.json; do
  n=$(basename $f .json)
  timeout 120 cusched run -p matmul -s $f --size bench --no-audit --json > /tmp/$n.json 2> /tmp/$n.err
  python3 bench/experiments/check_summary.py $n /tmp/$n.json /tmp/$n.err >> "$OUT/wgmma.txt"
  cusched lower -p matmul -s $f --size bench --emit cuda > "$OUT/$n.cu" 2>&1
done
cat "$OUT/tests.log" "$OUT/wgmma.txt"
