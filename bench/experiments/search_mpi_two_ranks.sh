#!/bin/bash
# On 2 GPUs: the search of search_one_and_two_gpus.sh under MPI,
# `mpirun --bind-to none -n 3` (rank 0 proposes and stores, ranks 1 and 2 evaluate on one GPU
# each), with the host's OpenMPI libraries instead of the carried Debian ones (the host's
# mpirun starts the ranks). Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
source bench/experiments/host_mpi_env.sh
mpirun --version | head -1
ldd "$(command -v cusched)" | grep -E "libmpi|not found"
start=$(date +%s.%N)
timeout 280 mpirun --allow-run-as-root --bind-to none -n 3 -x LD_LIBRARY_PATH -x PATH -x CUSCHED_WORKER -x CUSCHED_CACHE_DIR \
    cusched search -p softmax --rounds 3 --ideas 4 --per-idea 6 --no-audit --threads 12 --mpi \
    --db "$OUT/search_mpi3.db" > "$OUT/search_mpi3.log" 2>&1
rc=$?
end=$(date +%s.%N)
python3 - "$OUT/search_mpi3.db" "$start" "$end" "$rc" <<'PY'
import sqlite3, sys
db, start, end, rc = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
c = sqlite3.connect(db)
n = c.execute("select count(*) from evaluations").fetchone()[0]
best = c.execute("select c.id, e.median_ms from evaluations e join candidates c on c.id = e.candidate where e.verified = 1 order by e.median_ms limit 1").fetchone()
print(f"mpirun -n 3 (2 evaluating ranks): exit {rc}, {n} evaluations in {end - start:.1f} s = {n / (end - start) * 60:.0f} per minute; best verified candidate {best}")
PY
tail -4 "$OUT/search_mpi3.log"
