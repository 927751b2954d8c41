#!/bin/bash
# The generated wgmma matmul kernel through `cusched check` (as
# emitted, and with the thread index as a constant expression) next to the hand probe, to
# tell the kernel from the path. Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
: > "$OUT/check.txt"
chk() { bash bench/experiments/check_line.sh check matmul tf32 "$1" "$2" >> "$OUT/check.txt"; }  # name file
python3 bench/experiments/handwritten/gen_matmul_wgmma_ct.py /tmp/probe.cu --inflight 1 --stages 4
python3 bench/experiments/wgmma_check/make_variants.py /tmp generated generated_tid
chk probe_ct /tmp/probe.cu
chk generated /tmp/generated.cu
chk generated_tid /tmp/generated_tid.cu
bash bench/experiments/check_line.sh run matmul run_best best >> "$OUT/check.txt"
cat "$OUT/check.txt"
