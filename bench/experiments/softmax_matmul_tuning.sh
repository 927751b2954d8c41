#!/bin/bash
# Tuning variants after the unrounded fragments and the refill order (tuning_s8/gen_variants.py):
# softmax over other cluster and block sizes, matmul and Gemm+Add+ReLU with launch bounds.
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/tuning_s8/gen_variants.py bench/experiments/tuning_s8/generated
VARIANTS="softmax:tuning_s8/generated/softmax matmul:tuning_s8/generated/matmul gemm_add_relu:tuning_s8/generated/gemm_add_relu" \
  VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh
