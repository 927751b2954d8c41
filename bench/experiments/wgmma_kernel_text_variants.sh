#!/bin/bash
# Variants of the generated wgmma matmul kernel through
# `cusched check`, to find what makes it slower than the hand probe. Each argument is a
# variant of wgmma_check/make_variants.py, or probe_split_layout (the hand probe with the
# generated kernel's shared layout). The runs were:
#   wgmma_kernel_text_variants.sh generated gen_r_inputs gen_no_hold gen_block256
#   wgmma_kernel_text_variants.sh generated gen_no_pdl probe_split_layout
#   wgmma_kernel_text_variants.sh gen_unsigned_tid
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
: > "$OUT/check.txt"
for f in "$@"; do
  if [ "$f" = probe_split_layout ]; then
    python3 bench/experiments/handwritten/gen_matmul_wgmma_ct.py /tmp/$f.cu --split-layout 1
  else
    python3 bench/experiments/wgmma_check/make_variants.py /tmp "$f"
  fi
  bash bench/experiments/check_line.sh check matmul tf32 $f /tmp/$f.cu >> "$OUT/check.txt"
done
cat "$OUT/check.txt"
