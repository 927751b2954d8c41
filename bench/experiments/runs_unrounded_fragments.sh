#!/bin/bash
# The lowering with A fragments left unrounded for wgmma and the
# simplify_divisions pass. GPU suites, the best schedules of the problems whose kernels use
# staged copies or wgmma, and the source counters of the new matmul kernel. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
bash bench/experiments/gpu_suites.sh 4 200 > "$OUT/suites.txt" 2>&1
bash bench/experiments/cusched_runs.sh matmul matmul_rect bmm gemm_add_relu gemm_scale_leakyrelu gemm_gelu_softmax softmax softmax_large cross_entropy conv2d_relu_bias conv2d layernorm rmsnorm maxpool2d
source bench/experiments/ncu_common.sh
timeout 150 $NCU --clock-control none --target-processes all --section SpeedOfLight --section SourceCounters --import-source no \
  -k "regex:^k0_C" --launch-count 1 -o "$OUT/mm_new" cusched run -p matmul -s best --size bench --no-audit > "$OUT/mm_new.log" 2>&1
$NCU -i "$OUT/mm_new.ncu-rep" --page source --csv --print-source sass > "$OUT/mm_new_sass.csv" 2>&1
$NCU -i "$OUT/mm_new.ncu-rep" --page details > "$OUT/mm_new_details.txt" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|SM Frequency" "$OUT/mm_new_details.txt"
rm -f "$OUT"/*.ncu-rep
cat "$OUT/suites.txt"
