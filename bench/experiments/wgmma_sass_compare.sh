#!/bin/bash
# SASS of the generated wgmma matmul kernel and of the hand probe
# (nvcc and cuobjdump of the device's CUDA toolkit), to compare their main loops.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
T=$(dirname "$(find /usr/local/cuda*/bin -name nvcc 2>/dev/null | head -1)")
echo "toolkit: $T"
python3 bench/experiments/wgmma_check/make_variants.py /tmp generated
python3 bench/experiments/handwritten/gen_matmul_wgmma_ct.py /tmp/probe_split_layout.cu --split-layout 1
for f in generated probe_split_layout; do
  $T/nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -I codegen/device -cubin -o /tmp/$f.cubin /tmp/$f.cu 2>&1 | tail -2
  $T/cuobjdump -sass /tmp/$f.cubin > "$OUT/$f.sass" 2>&1
  echo "$f: $(grep -c '^ */\*[0-9a-f]*\*/' "$OUT/$f.sass") instructions, $(grep -c 'HGMMA' "$OUT/$f.sass") HGMMA, $(grep -c 'WARPGROUP' "$OUT/$f.sass") WARPGROUP, $(grep -c 'LDS' "$OUT/$f.sass") LDS, $(grep -c 'LDGSTS' "$OUT/$f.sass") LDGSTS, $(grep -c 'BAR' "$OUT/$f.sass") BAR"
done
