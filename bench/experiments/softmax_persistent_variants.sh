#!/bin/bash
# The generated softmax kernel through `cusched check` (the
# control for the hand-written variants), the persistent double-buffered softmax
# variants, the softmax_large variants, and the persistent LayerNorm probe.
# Needs .carry/gpu. Writes checks.txt to $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
start=$(date +%s)
H=/tmp/handwritten; rm -rf $H /tmp/checks; mkdir -p /tmp/checks; python3 bench/experiments/handwritten/gen_softmax_variants.py $H
cusched lower -p softmax -s best --size bench --emit cuda | sed 's/k0_Y(/softmax_kernel(/' > $H/softmax__generated_best.cu
echo "// cusched-launch size=bench grid=8,4096,1 block=256,1,1 smem=0" >> $H/softmax__generated_best.cu
cp bench/experiments/handwritten/layernorm_persistent.cu $H/layernorm__persistent_grid.cu
: > "$OUT/checks.txt"
for f in $H/layernorm__persistent_grid.cu $H/softmax__generated_best.cu $H/softmax__sm_c8t256_regcopy_red1.cu $H/*persist*.cu $H/softmax_large__*.cu; do
  n=$(basename $f .cu); p=${n%%__*}
  if [ -e /tmp/checks/$n.json ]; then continue; fi
  if [ $(( $(date +%s) - start )) -gt ${DEADLINE_S:-500} ]; then echo "$n: skipped (deadline)" >> "$OUT/checks.txt"; continue; fi
  timeout 90 cusched check -p $p --size bench --no-audit $f > /tmp/checks/$n.json 2> /tmp/checks/$n.err
  rc=$?
  python3 bench/experiments/check_summary.py "$n" "/tmp/checks/$n.json" /tmp/checks/$n.err >> "$OUT/checks.txt"
done
echo "total: $(( $(date +%s) - start )) s" >> "$OUT/checks.txt"
cat "$OUT/checks.txt"
