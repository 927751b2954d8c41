#!/bin/bash
# On 2 GPUs: The same softmax search (bench size, built-in
# proposer, 3 rounds x 4 ideas x 6 schedules, seed 1, no audit) on one GPU and on both
# GPUs of the host (one worker per GPU, no MPI), candidates evaluated per minute. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
nvidia-smi -L
for setup in "1 0" "2 0,1"; do
  set -- $setup
  start=$(date +%s.%N)
  CUDA_VISIBLE_DEVICES=$2 timeout 280 cusched search -p softmax --rounds 3 --ideas 4 --per-idea 6 --no-audit --threads 12 \
      --db "$OUT/search_$1gpu.db" > "$OUT/search_$1gpu.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  python3 - "$OUT/search_$1gpu.db" "$1" "$start" "$end" "$rc" <<'PY'
import sqlite3, sys
db, gpus, start, end, rc = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
c = sqlite3.connect(db)
n = c.execute("select count(*) from evaluations").fetchone()[0]
best = c.execute("select min(median_ms) from evaluations where verified = 1").fetchone()[0]
wall = end - start
print(f"{gpus} GPU(s): exit {rc}, {n} evaluations in {wall:.1f} s = {n / wall * 60:.0f} per minute; best verified {best} ms")
PY
  tail -3 "$OUT/search_$1gpu.log"
done
