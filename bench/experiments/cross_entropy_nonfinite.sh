#!/bin/bash
# The cross-entropy schedule that the GPU property suite found
# writing a non-finite loss (ce_nonfinite/drawn.json) and three reductions of it
# (ce_nonfinite/reductions.py), each run 4 times at the small size with programmatic
# dependent launch and 4 times with
# CUSCHED_SERIAL_LAUNCHES=1; the property suite's cross-entropy case both ways; the SASS
# of the drawn schedule's kernels. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/ce_nonfinite/reductions.py /tmp/ce_nonfinite
: > "$OUT/ce.txt"
for f in /tmp/ce_nonfinite/*.json; do
  for serial in 0 1; do
    line="$(basename $f .json) serial=$serial:"
    for t in 1 2 3 4; do
      v=$(CUSCHED_SERIAL_LAUNCHES=$serial timeout 60 cusched run -p cross_entropy -s $f --size small --json --no-audit 2>/dev/null |
          python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('verdict', d.get('outcome', {}).get('verdict', '?')))" 2>/dev/null)
      line="$line ${v:-error}"
    done
    echo "$line" >> "$OUT/ce.txt"
  done
done
for serial in 0 1; do
  echo "== property suite, cross_entropy, serial=$serial" >> "$OUT/ce.txt"
  CUSCHED_SERIAL_LAUNCHES=$serial CUSCHED_GPU_PROPERTY_COUNT=12 timeout 200 gpu_property_tests --gtest_brief=1 \
      --gtest_filter='*cross_entropy*' 2>&1 | grep -E "NaN|checked|PASSED|FAILED" | head -8 >> "$OUT/ce.txt"
done
cusched lower -p cross_entropy -s /tmp/ce_nonfinite/drawn.json --size small --emit cuda > /tmp/drawn.cu
CUDA_BIN=$(dirname "$(find /usr/local/cuda*/ -name cuobjdump 2>/dev/null | head -1)")
$CUDA_BIN/nvcc -arch=sm_90a -std=c++17 -I codegen/device -cubin -x cu /tmp/drawn.cu -o /tmp/drawn.cubin > /dev/null 2>&1
$CUDA_BIN/cuobjdump -sass /tmp/drawn.cubin > "$OUT/drawn.sass" 2>&1
cat "$OUT/ce.txt"
echo "== k2_Loss SASS up to its first stores"; awk '/Function : k2_Loss/,/EXIT/' "$OUT/drawn.sass" | grep -E "LDG|ACQ|DEPBAR|griddep|PREEXIT|STG|BAR|CCTL|WAIT" | head -20
