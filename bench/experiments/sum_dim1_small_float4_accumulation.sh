#!/bin/bash
# The one best-schedule kernel besides softmax's whose CUDA the emitter change to
# vectorized register-array loads altered (sum_dim1_small: a vectorized accumulation into a
# register array now loads float4), against PyTorch, and the kernel as emitted before the
# change (register_targets/sum_dim1_small_before.cu) through `cusched check`, twice each.
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
SKIP_TESTS=1 PROBLEMS="sum_dim1_small" COMPILE_PROBLEMS="sum_dim1_small" bash bench/run_gpu_bench.sh > "$OUT/bench.txt" 2>&1
source bench/gpu_env.sh
python3 -c "
import sys; sys.path.insert(0, 'bench/experiments')
from emitted_kernel import source_for_check
open('/tmp/sum_before.cu', 'w').write(source_for_check('sum_dim1_small', open('bench/experiments/register_targets/sum_dim1_small_before.cu').read()))
"
: > "$OUT/runs.txt"
for round in 1 2; do
  bash bench/experiments/check_line.sh check sum_dim1_small f32 "sum_before_$round" /tmp/sum_before.cu >> "$OUT/runs.txt"
  bash bench/experiments/check_line.sh run sum_dim1_small "sum_after_$round" best >> "$OUT/runs.txt"
done
tail -8 "$OUT/bench.txt"
cat "$OUT/runs.txt"
