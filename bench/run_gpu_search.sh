#!/bin/bash
# Built-in-proposer searches on the GPU machine, from the baseline schedules, one
# problem after another: `cusched search` with a candidate budget and a time cap,
# each run's store and log under $OUT. Needs .carry/gpu from bench/prepare_gpu_carry.sh.
#   SEARCH_PROBLEMS="softmax layernorm matmul" CANDIDATES=300 MINUTES=2 bash bench/run_gpu_search.sh
set -u
cd "$(dirname "$0")/.."
source bench/gpu_env.sh
for p in ${SEARCH_PROBLEMS:-softmax layernorm matmul}; do
  start=$(date +%s)
  timeout $(python3 -c "print(int(${MINUTES:-2} * 60 + 60))") cusched search -p "$p" --proposer builtin --rounds 40 --ideas 4 --per-idea 4 \
      --budget-candidates "${CANDIDATES:-300}" --budget-minutes "${MINUTES:-2}" --threads 12 --no-audit \
      --db "$OUT/search_$p.db" > "$OUT/search_$p.log" 2>&1
  echo "$p: exit $? after $(( $(date +%s) - start )) s; $(grep -c '^round' "$OUT/search_$p.log") round lines"
  tail -2 "$OUT/search_$p.log"
  # The best verified GPU median after every 25 evaluations, in evaluation order.
  python3 - "$OUT/search_$p.db" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "select e.verified, e.median_ms from evaluations e order by e.id").fetchall()
best, curve = None, []
for n, (ok, ms) in enumerate(rows, 1):
    if ok and ms is not None and (best is None or ms < best): best = ms
    if n % 25 == 0 or n == len(rows): curve.append(f"{n}:{best:.4f}" if best else f"{n}:-")
print("  curve (evaluations:best ms) " + " ".join(curve))
PY
done
