#!/bin/bash
# Where softmax loses time against a copy
# (probes/softmax_stream_probe.cu, built with nvcc here and carried as
# .carry/gpu/bin/softmax_stream_probe). Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
timeout 300 softmax_stream_probe > "$OUT/stream.txt" 2>&1
cat "$OUT/stream.txt"
