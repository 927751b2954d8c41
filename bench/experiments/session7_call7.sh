#!/bin/bash
# Session-7 device call 7: the generated wgmma matmul kernel through `cusched check` (as
# emitted, and with the thread index as a constant expression) next to the hand probe, to
# tell the kernel from the path. Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
: > "$OUT/check.txt"
chk() {  # name file
  timeout 90 cusched check -p matmul --size bench --no-audit --precision tf32 "$2" > /tmp/$1.json 2> /tmp/$1.err
  python3 bench/experiments/check_summary.py $1 /tmp/$1.json /tmp/$1.err >> "$OUT/check.txt"
}
python3 bench/experiments/handwritten/gen_matmul_wgmma_ct.py /tmp/probe.cu --inflight 1 --stages 4
chk probe_ct /tmp/probe.cu
chk generated bench/experiments/wgmma_check/generated.cu
chk generated_tid bench/experiments/wgmma_check/generated_tid.cu
timeout 120 cusched run -p matmul -s best --size bench --no-audit --json > /tmp/run.json 2> /tmp/run.err
python3 bench/experiments/check_summary.py run_best /tmp/run.json /tmp/run.err >> "$OUT/check.txt"
cat "$OUT/check.txt"
