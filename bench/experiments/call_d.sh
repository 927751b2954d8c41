#!/bin/bash
# Session-3 device call D: the side-by-side table (cusched best vs PyTorch eager and
# torch.compile, same shapes, same protocol) for the problems whose best schedules
# changed this session, then a LayerNorm search with the fixed split-row sketches.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
SKIP_TESTS=1 PROBLEMS="${PROBLEMS:-matmul matmul_rect bmm gemm_add_relu gemm_scale_leakyrelu softmax layernorm sum_dim1 relu}" \
  COMPILE_PROBLEMS="${COMPILE_PROBLEMS:-matmul gemm_add_relu softmax layernorm sum_dim1 relu}" \
  bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
cp "$OUT/table.md" "$OUT/table_bench.md" 2>/dev/null
if [ "${SEARCH_MINUTES:-0}" != 0 ]; then
  SEARCH_PROBLEMS=layernorm CANDIDATES=300 MINUTES=$SEARCH_MINUTES bash bench/run_gpu_search.sh > "$OUT/search.txt" 2>&1
fi
tail -25 "$OUT/bench.txt"; cat "$OUT/search.txt" 2>/dev/null
