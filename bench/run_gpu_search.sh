#!/bin/bash
# Built-in-proposer searches on the GPU machine, from the baseline schedules, one
# problem after another: `cusched search` with a candidate budget and a time cap,
# each run's store and log under $OUT, and one search record ($OUT/results/DATE-NAME.json,
# RECORD_NAME default search-builtin; PREDICTION: what is expected, written before the run).
# Needs .carry/gpu from bench/prepare_gpu_carry.sh.
#   SEARCH_PROBLEMS="softmax layernorm matmul" CANDIDATES=300 MINUTES=2 bash bench/run_gpu_search.sh
set -u
cd "$(dirname "$0")/.."
source bench/gpu_env.sh
export CUSCHED_RUN_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
COMMAND_LINE="SEARCH_PROBLEMS=\"${SEARCH_PROBLEMS:-softmax layernorm matmul}\" CANDIDATES=${CANDIDATES:-300} MINUTES=${MINUTES:-2} bash bench/run_gpu_search.sh"
: > "$OUT/search_summary.txt"
for p in ${SEARCH_PROBLEMS:-softmax layernorm matmul}; do
  start=$(date +%s)
  timeout $(python3 -c "print(int(${MINUTES:-2} * 60 + 60))") cusched search -p "$p" --proposer builtin --rounds 40 --ideas 4 --per-idea 4 \
      --budget-candidates "${CANDIDATES:-300}" --budget-minutes "${MINUTES:-2}" --threads 12 --no-audit --stall-rounds "${STALL_ROUNDS:-0}" \
      --db "$OUT/search_$p.db" > "$OUT/search_$p.log" 2>&1
  { echo "$p: exit $? after $(( $(date +%s) - start )) s; $(grep -c '^round' "$OUT/search_$p.log") round lines"
    tail -2 "$OUT/search_$p.log"; }
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
done | tee -a "$OUT/search_summary.txt"
: > /tmp/search_empty.jsonl
python3 bench/make_record.py --runs /tmp/search_empty.jsonl --kind search --name "${RECORD_NAME:-search-builtin}" \
    --command "$COMMAND_LINE" --prediction "${PREDICTION:-}" --out-dir "$OUT/results" \
    --notes "$(printf 'Per problem: exit status, wall time, the last lines of the log and the best verified median after every 25 evaluations.\n\n```\n%s\n```' "$(cat "$OUT/search_summary.txt")")"
