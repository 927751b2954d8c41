#!/bin/bash
# Built-in-proposer searches on the GPU machine, from the baseline schedules, one
# problem after another: `cusched search` with a candidate budget and a time cap,
# each run's store and log under $OUT. Needs .carry/gpu from bench/prepare_gpu_carry.sh.
#   SEARCH_PROBLEMS="softmax layernorm matmul" CANDIDATES=300 MINUTES=2 bash bench/run_gpu_search.sh
set -u
cd "$(dirname "$0")/.."
C=$PWD/.carry/gpu
OUT=${OUT:-/tmp/cusched-out}
mkdir -p "$OUT"
export PATH=$C/bin:$PATH CUSCHED_WORKER=$C/bin/cusched-worker CUSCHED_CACHE_DIR=/tmp/cusched-cache
NVRTC_DIR=$(dirname "$(find /usr/local/cuda*/ -name 'libnvrtc.so.13' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$C/lib:$NVRTC_DIR:${LD_LIBRARY_PATH:-}
for p in ${SEARCH_PROBLEMS:-softmax layernorm matmul}; do
  start=$(date +%s)
  timeout $(python3 -c "print(int(${MINUTES:-2} * 60 + 60))") cusched search -p "$p" --proposer builtin --rounds 40 --ideas 4 --per-idea 4 \
      --budget-candidates "${CANDIDATES:-300}" --budget-minutes "${MINUTES:-2}" --threads 12 --no-audit \
      --db "$OUT/search_$p.db" > "$OUT/search_$p.log" 2>&1
  echo "$p: exit $? after $(( $(date +%s) - start )) s; $(grep -c '^round' "$OUT/search_$p.log") round lines"
  tail -3 "$OUT/search_$p.log"
done
