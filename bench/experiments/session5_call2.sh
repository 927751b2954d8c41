#!/bin/bash
# Session-5 device call 2: the bandwidth kernels with several loads in flight
# (`cusched device`), then the schedule variants of the problems behind PyTorch or their
# targets, most important first, stopping before DEADLINE_S. Needs .carry/gpu from
# bench/prepare_gpu_carry.sh. Writes device.txt, variants.txt and best_runs.jsonl to $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
cusched device > "$OUT/device.txt" 2>&1
SKIP_TESTS=1 DEADLINE_S=${DEADLINE_S:-470} VARIANT_TIMEOUT=${VARIANT_TIMEOUT:-110} \
  VARIANTS="${VARIANTS:-softmax softmax_large rmsnorm maxpool2d max_dim1 sum_dim1 conv2d_relu_bias conv2d layernorm}" \
  bash bench/experiments/session4_variants.sh > /dev/null 2>&1
cat "$OUT/device.txt" | tail -3; cat "$OUT/variants.txt"
