#!/bin/bash
# On 2 GPUs: the MPI search of search_mpi_two_ranks.sh with evaluating rank 2
# killed (SIGKILL) 10 s in, under `mpirun --enable-recovery`; the store is judged (every
# candidate evaluated once, the winner), not mpirun's exit status. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
source bench/experiments/host_mpi_env.sh
(
  sleep 10
  for pid in $(pgrep -f "cusched search -p softmax"); do
    if tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=2"; then
      echo "killing rank 2 (pid $pid) at $(date +%T)"; kill -9 "$pid"
    fi
  done
) &
start=$(date +%s.%N)
timeout 200 mpirun --allow-run-as-root --enable-recovery --bind-to none -n 3 -x LD_LIBRARY_PATH -x PATH -x CUSCHED_WORKER -x CUSCHED_CACHE_DIR \
    cusched search -p softmax --rounds 3 --ideas 4 --per-idea 6 --no-audit --threads 12 --mpi \
    --db "$OUT/search_killed.db" > "$OUT/search_killed.log" 2>&1
rc=$?
end=$(date +%s.%N)
wait
python3 - "$OUT/search_killed.db" "$start" "$end" "$rc" <<'PY'
import sqlite3, sys
db, start, end, rc = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
c = sqlite3.connect(db)
n = c.execute("select count(*) from evaluations").fetchone()[0]
cands = c.execute("select count(*) from candidates").fetchone()[0]
dup = c.execute("select count(*) from (select candidate from evaluations group by candidate having count(*) > 1)").fetchone()[0]
best = c.execute("select c.id, e.median_ms from evaluations e join candidates c on c.id = e.candidate where e.verified = 1 order by e.median_ms limit 1").fetchone()
print(f"rank 2 killed: exit {rc}, {cands} candidates, {n} evaluations ({dup} evaluated twice) in {end - start:.1f} s; best verified candidate {best}")
PY
grep -E "dropped|re-queue|requeue|alive|done:" "$OUT/search_killed.log" | tail -6
