#!/bin/bash
# Session-7 device call 5: the generated wgmma matmul (best schedule, the pipelined loop
# run in pairs); when it verifies, the table rows of the six tensor-core problems against
# PyTorch (torch.compile for matmul only). Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
timeout 120 cusched run -p matmul -s best --size bench --no-audit --json > /tmp/mm.json 2> /tmp/mm.err
python3 bench/experiments/check_summary.py matmul_wgmma /tmp/mm.json /tmp/mm.err | tee "$OUT/matmul.txt"
if grep -q " ok " "$OUT/matmul.txt"; then
  SKIP_TESTS=1 PROBLEMS="matmul matmul_rect bmm gemm_add_relu gemm_scale_leakyrelu gemm_gelu_softmax" COMPILE_PROBLEMS="matmul" \
    bash bench/run_gpu_bench.sh > /dev/null 2>&1
  cat "$OUT/table.md"
fi
