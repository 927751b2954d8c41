#!/bin/bash
# Session-4 device call 1 (carried binaries of session 3): cusched's best schedules and
# PyTorch for the problems never benchmarked. (The call also tried hand-written cluster
# softmax kernels, which did not run; the DSL's cluster reductions replaced them.)
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
start=$(date +%s)
SKIP_TESTS=1 PROBLEMS="${PROBLEMS:-matvec relu_large gelu gelu_large softmax_large rmsnorm max_dim1 argmax_dim1 maxpool2d conv2d mse_loss cross_entropy gemm_gelu_softmax conv2d_relu_bias}" \
  COMPILE_PROBLEMS="${COMPILE_PROBLEMS:-}" bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
echo "bench: $(( $(date +%s) - start )) s" >> "$OUT/bench.txt"
tail -22 "$OUT/bench.txt"
