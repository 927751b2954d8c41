#!/bin/bash
# Session-7 device call 6: the GPU suites (with the new GpuWgmma tests), then the wgmma
# matmul with one barrier per k-step (copies issued after the barrier), with launch bounds
# (256, 1) and with a 3-deep pipeline, and the hand probe without its fragment rounding.
# Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 150 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=3 timeout 200 gpu_property_tests --gtest_brief=1 2>&1 | tail -6
} > "$OUT/tests.log" 2>&1
: > "$OUT/wgmma.txt"
for f in bench/experiments/wgmma/*.json; do
  n=$(basename $f .json)
  timeout 120 cusched run -p matmul -s $f --size bench --no-audit --json > /tmp/$n.json 2> /tmp/$n.err
  python3 bench/experiments/check_summary.py $n /tmp/$n.json /tmp/$n.err >> "$OUT/wgmma.txt"
done
cat "$OUT/tests.log" "$OUT/wgmma.txt"
