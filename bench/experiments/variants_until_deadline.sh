#!/bin/bash
# The GPU property suite (cluster reductions included), then the
# schedule variants of bench/experiments/<problem>/ timed per problem (one worker per
# problem, so inputs and the reference are made once), stopping before DEADLINE_S.
# Writes gpu_tests.log, variants.txt and best_runs.jsonl (rows for bench/make_record.py --runs) to $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
start=$(date +%s)
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  { echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=${GPU_PROPERTY_COUNT:-3} timeout 240 gpu_property_tests 2>&1 | grep -E "^\[  (FAILED|PASSED|  OK)|Failure|Expected|Which is|clusters of|checked on the GPU" | head -60
  } > "$OUT/gpu_tests.log" 2>&1
  echo "tests: $(( $(date +%s) - start )) s" >> "$OUT/gpu_tests.log"
fi
: > "$OUT/variants.txt"
args=()
for p in ${VARIANTS:-softmax softmax_large matvec gemm_gelu_softmax cross_entropy mse_loss argmax_dim1 max_dim1 relu_large gelu_large rmsnorm conv2d_relu_bias conv2d maxpool2d}; do
  if [ $(( $(date +%s) - start )) -gt ${DEADLINE_S:-400} ]; then echo "== $p: skipped (deadline)" >> "$OUT/variants.txt"; continue; fi
  VDIR=/tmp/variants VARIANTS=$p VARIANT_TIMEOUT=${VARIANT_TIMEOUT:-100} bash bench/experiments/run_variants.sh >> "$OUT/variants.txt" 2>&1
  args+=("$p=/tmp/variants/variants_$p.db")
done
python3 bench/experiments/variants_summary.py "${args[@]}" > "$OUT/best_runs.jsonl"
cat "$OUT/gpu_tests.log" 2>/dev/null; cat "$OUT/variants.txt"
