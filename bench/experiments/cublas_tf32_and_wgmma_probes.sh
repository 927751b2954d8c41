#!/bin/bash
# PyTorch's matmuls with TF32 allowed (cuBLAS TF32, the reference
# for the 0.40 ms target), the hand-written wgmma probes (C^T form with A from registers,
# plain and L2-grouped rasterisation, 3 and 4 stages; the earlier probe with one k-step in
# flight), and the LayerNorm moments-kernel probe (emitted loop, loads first, L2::256B hint,
# read streams of the same bytes). Needs .carry/gpu with ln_moments_probe. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
ln_moments_probe > "$OUT/ln_probe.txt" 2>&1
cusched problems --json > /tmp/problems.json
python3 bench/torch_baselines.py --problems-json /tmp/problems.json --tf32 --no-compile matmul matmul_rect bmm gemm_add_relu > "$OUT/torch_tf32.jsonl" 2> "$OUT/torch_tf32.err"
: > "$OUT/probes.txt"
probe() {  # name generator args...
  local name=$1 gen=$2; shift 2
  python3 bench/experiments/handwritten/$gen /tmp/$name.cu "$@"
  bash bench/experiments/check_line.sh check matmul tf32 $name /tmp/$name.cu >> "$OUT/probes.txt"
}
probe ct_s4 gen_matmul_wgmma_ct.py --stages 4
probe ct_s4_g8 gen_matmul_wgmma_ct.py --stages 4 --group 8
probe ct_s3 gen_matmul_wgmma_ct.py --stages 3
probe ct_s4_g4 gen_matmul_wgmma_ct.py --stages 4 --group 4
probe s6_inflight1 gen_matmul_wgmma.py --inflight 1
cat "$OUT/ln_probe.txt" "$OUT/probes.txt"
python3 -c "
import json
for l in open('$OUT/torch_tf32.jsonl'):
    d=json.loads(l); print(d.get('problem'), 'eager tf32', d.get('eager_ms'), 'tf32', d.get('tf32'))
"
tail -3 "$OUT/torch_tf32.err"
