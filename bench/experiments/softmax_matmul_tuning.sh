#!/bin/bash
# Tuning variants after the unrounded fragments and the refill order (tuning/gen_variants.py):
# softmax over other cluster and block sizes, matmul and Gemm+Add+ReLU with launch bounds.
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/tuning/gen_variants.py bench/experiments/tuning/generated
VARIANTS="softmax:tuning/generated/softmax matmul:tuning/generated/matmul gemm_add_relu:tuning/generated/gemm_add_relu" \
  VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh
