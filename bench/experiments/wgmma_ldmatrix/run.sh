#!/bin/bash
# matmul_bf16's best schedule at 4096^3 exported by `cusched export` (kernel.cu, from a
# commit whose 16-bit wgmma A fragments came from ldmatrix.x4.trans) in variants: as
# emitted, with a memory clobber on the ldmatrix, with wgmma_wait<0> after both halves
# of the k-step pair, after the second only, with accumulator fences, without the
# register holds, with a proxy fence before each barrier, and with the scalar 16-bit
# fragment loads. Each is built by nvcc for sm_90a with driver.cu.inc (its own bf16
# inputs, an f32 reference kernel, three runs compared at 1e-2 and with each other, 20
# launches timed back to back) and run.
#   bash bench/experiments/wgmma_ldmatrix/run.sh kernel.cu
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cp "$1" "$work/kernel.cu"
cp "$here/driver.cu.inc" "$work/driver.inc"
cd "$work" && python3 "$here/make_variants.py"
NVCC=${CUSCHED_NVCC:-/usr/local/cuda/bin/nvcc}
for v in v*.cu; do "$NVCC" -gencode arch=compute_90a,code=sm_90a -o "${v%.cu}" "$v" & done
wait
for v in v*.cu; do echo "== ${v%.cu}"; timeout 60 "./${v%.cu}" | grep -E "rep|time|i%"; done
