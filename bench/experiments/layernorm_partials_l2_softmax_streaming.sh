#!/bin/bash
# LayerNorm with 4 or 8 partial moments per row from clusters and
# the combine done in each normalisation block (layernorm_moments, set partials_in_y: two kernels);
# the LayerNorm L2 probe with evict_last on the last channels the moments kernel reads
# and the normalisation reading them first (probes/ln_l2_probe.cu, carried as
# .carry/gpu/bin/ln_l2_probe); softmax with streaming cache hints (streaming_hints/).
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/layernorm_moments/gen_variants.py partials_in_y
VARIANTS="layernorm:layernorm_moments" VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh
mkdir -p /tmp/sh
python3 bench/experiments/streaming_hints/emitted_variants.py /tmp/sh
: > "$OUT/check.txt"
for round in 1 2; do
  for v in emitted cs_loads cs_stores cs_both; do
    bash bench/experiments/check_line.sh check softmax f32 "softmax_${v}_$round" /tmp/sh/softmax_$v.cu >> "$OUT/check.txt"
  done
done
cat "$OUT/check.txt"
timeout 120 ln_l2_probe > "$OUT/ln_l2.txt" 2>&1
cat "$OUT/ln_l2.txt"
