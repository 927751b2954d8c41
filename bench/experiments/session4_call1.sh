#!/bin/bash
# Session-4 device call 1 (carried binaries of session 3): hand-written softmax kernels
# that spread each row over a thread-block cluster (bench/experiments/softmax_cluster),
# then cusched's best schedules and PyTorch eager for the problems never benchmarked.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/softmax_cluster/make_variants.sh /tmp/scv
{
  for f in /tmp/scv/*.cu; do
    ms=$(timeout 120 cusched check --problem softmax "$f" --size bench --no-audit 2>>"$OUT/cluster.err" |
         python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('verdict'), d.get('median_ms') or d.get('timing',{}).get('median_ms'), (d.get('reason') or '')[:150])" 2>&1)
    echo "$(basename "$f") $ms"
  done
} > "$OUT/cluster.txt" 2>&1
start=$(date +%s)
SKIP_TESTS=1 PROBLEMS="${PROBLEMS:-matvec relu_large gelu gelu_large softmax_large rmsnorm max_dim1 argmax_dim1 maxpool2d conv2d mse_loss cross_entropy gemm_gelu_softmax conv2d_relu_bias}" \
  COMPILE_PROBLEMS="${COMPILE_PROBLEMS:-}" bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
echo "bench: $(( $(date +%s) - start )) s" >> "$OUT/bench.txt"
cat "$OUT/cluster.txt"; head -c 600 "$OUT/cluster.err"; tail -22 "$OUT/bench.txt"
