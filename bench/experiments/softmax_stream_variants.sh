#!/bin/bash
# Softmax's memory-stream probes (softmax_stream/gen_variants.py:
# L2 prefetch-size hints, cluster reductions through st.async and mbarriers instead of
# cluster barriers, Y written by a bulk copy; STREAM_VARIANTS picks others) against the
# emitted kernel, two rounds.
# Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
cusched device > "$OUT/device.txt" 2>&1
mkdir -p /tmp/s10
python3 bench/experiments/softmax_stream/gen_variants.py /tmp/s10
: > "$OUT/check.txt"
for round in 1 2; do
  for v in ${STREAM_VARIANTS:-control l2_256 nc_256 mbar bulk_store mbar_l2_256 mbar_bulk_store}; do
    bash bench/experiments/check_line.sh check softmax f32 "softmax_${v}_$round" /tmp/s10/softmax_$v.cu >> "$OUT/check.txt"
  done
done
cp /tmp/softmax_*.json /tmp/softmax_*.err "$OUT/" 2>/dev/null
cat "$OUT/device.txt" "$OUT/check.txt"
