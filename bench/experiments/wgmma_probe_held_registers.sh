#!/bin/bash
# The C^T wgmma probe with the fragment registers held until their
# wgmmas finish (inflight 0 and 1, stages, rasterisation), the LayerNorm L2-priority probe
# (moments then normalisation with evict_last / evict_first hints), and the read streams
# again with their tails read. Needs .carry/gpu with ln_moments_probe and ln_l2_probe.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
ln_l2_probe > "$OUT/ln_l2.txt" 2>&1
ln_moments_probe > "$OUT/ln_probe.txt" 2>&1
: > "$OUT/probes.txt"
probe() {  # name generator args...
  local name=$1 gen=$2; shift 2
  python3 bench/experiments/handwritten/$gen /tmp/$name.cu "$@"
  bash bench/experiments/check_line.sh check matmul tf32 $name /tmp/$name.cu >> "$OUT/probes.txt"
  cp /tmp/$name.json "$OUT/" 2>/dev/null
}
probe ct_i0_s4 gen_matmul_wgmma_ct.py --inflight 0 --stages 4
probe ct_i1_s4 gen_matmul_wgmma_ct.py --inflight 1 --stages 4
probe ct_i1_s3 gen_matmul_wgmma_ct.py --inflight 1 --stages 3
probe ct_i1_s4_g8 gen_matmul_wgmma_ct.py --inflight 1 --stages 4 --group 8
cat "$OUT/ln_l2.txt" "$OUT/ln_probe.txt" "$OUT/probes.txt"
