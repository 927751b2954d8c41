#!/bin/bash
# The GPU suites, the hand-written TF32 wgmma matmul probe
# through `cusched check`, exact against fast math for the four problems of
# bench/experiments/fast_math, and the table rows of softmax and softmax_large (whose
# best schedules use fast math) against PyTorch. Needs .carry/gpu. Writes tests.log,
# probe.txt, fast_math.txt and the bench files to $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
{
  echo "== gpu_runtime_tests"; timeout 100 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=2 timeout 100 gpu_property_tests --gtest_brief=1 2>&1 | tail -3
} > "$OUT/tests.log" 2>&1
python3 bench/experiments/handwritten/gen_matmul_wgmma.py /tmp/matmul_wgmma.cu
timeout 90 cusched check -p matmul --size bench --no-audit --precision tf32 /tmp/matmul_wgmma.cu > /tmp/wgmma.json 2> /tmp/wgmma.err
python3 bench/experiments/check_summary.py matmul_wgmma /tmp/wgmma.json /tmp/wgmma.err > "$OUT/probe.txt"
: > "$OUT/fast_math.txt"
for f in bench/experiments/fast_math/*.json; do
  n=$(basename $f .json); p=${n%%__*}
  echo "$n $(timeout 60 cusched run -p $p -s $f --no-audit 2>&1 | grep -E '^(verdict|time)' | tr -s ' ' | tr '\n' ' ')" >> "$OUT/fast_math.txt"
done
SKIP_TESTS=1 PROBLEMS="softmax softmax_large" bash bench/run_gpu_bench.sh > /dev/null 2>&1
cat "$OUT/tests.log" "$OUT/probe.txt" "$OUT/fast_math.txt" "$OUT"/results/*.json
