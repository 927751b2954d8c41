#!/bin/bash
# The two GPU suites (the random schedules now include warpgroup
# tiles and L2 hints), LayerNorm's best schedule with the l2_hint primitive on its moments
# kernel (layernorm_moments, set l2), and the one-reduction softmax probes
# (online_softmax/gen_variants.py) against the emitted kernel, twice each. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
cusched device > "$OUT/suites.txt" 2>&1
bash bench/experiments/gpu_suites.sh 6 200 >> "$OUT/suites.txt" 2>&1
python3 bench/experiments/layernorm_moments/gen_variants.py l2
VARIANTS="layernorm:layernorm_moments" VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh > "$OUT/layernorm_l2.txt" 2>&1
mkdir -p /tmp/osm
python3 bench/experiments/online_softmax/gen_variants.py /tmp/osm
: > "$OUT/check.txt"
for round in 1 2; do
  for v in control online_smem online_regs; do
    bash bench/experiments/check_line.sh check softmax f32 "softmax_${v}_$round" /tmp/osm/softmax_$v.cu >> "$OUT/check.txt"
  done
done
cat "$OUT/suites.txt" "$OUT/layernorm_l2.txt" "$OUT/check.txt"
