#!/bin/bash
# The refill copies issued after the wgmma fragment loads (pass
# issue_refills_after_fragments) and the pushed cluster reductions
# (cluster_allreduce_uniform_push). GPU suites, the problems whose kernels changed, and the
# stall reasons of the new matmul and softmax kernels. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/gpu_suites.sh 4 200 > "$OUT/suites.txt" 2>&1
bash bench/experiments/cusched_runs.sh matmul matmul_rect bmm gemm_add_relu gemm_scale_leakyrelu gemm_gelu_softmax softmax softmax_large cross_entropy argmax_dim1 max_dim1 sum_dim1
source bench/experiments/ncu_common.sh
stalls mm '^k0_C' 0 cusched run -p matmul -s best --size bench --no-audit
stalls softmax '^k0_Y' 0 cusched run -p softmax -s best --size bench --no-audit
rm -f "$OUT"/*.ncu-rep
cat "$OUT/suites.txt"
