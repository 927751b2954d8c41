#!/bin/bash
# The emitted wgmma matmul kernel with its A fragments truncated by
# the tensor core instead of rounded, and with the copy loops' indices simplified by the
# thread index's range (wgmma_check/emitted_variants.py), through `cusched check`; the stall
# reasons of the softmax and LayerNorm normalisation kernels by instruction. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
mkdir -p /tmp/ev
python3 bench/experiments/wgmma_check/emitted_variants.py /tmp/ev
: > "$OUT/check.txt"
for v in emitted trunc idx trunc_idx; do
  bash bench/experiments/check_line.sh check matmul tf32 "$v" /tmp/ev/$v.cu >> "$OUT/check.txt"
done
for v in trunc_idx emitted; do
  bash bench/experiments/check_line.sh check matmul tf32 "${v}_again" /tmp/ev/$v.cu >> "$OUT/check.txt"
done
source bench/experiments/ncu_common.sh
stalls softmax '^k0_Y' 0 cusched run -p softmax -s best --size bench --no-audit
stalls ln_y '^k2_Y' 0 cusched run -p layernorm -s best --size bench --no-audit
rm -f "$OUT"/*.ncu-rep
cat "$OUT/check.txt"
