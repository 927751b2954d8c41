#!/bin/bash
# The verification checks that need the H200, in one command: the timing cut's GPU test,
# the cheating-kernel corpus through `check` and as search candidates with
# compute-sanitizer on every problem's best (bench/check_cheats.sh, SANITIZE_BESTS=1),
# a LayerNorm search from the baseline whose wrong_output candidates are listed with
# their errors (the store is kept in $OUT for a look at those schedules), and random
# schedules legal at the bench size verified there (gpu_property_tests).
# Needs .carry/gpu (bench/prepare_gpu_carry.sh). Logs go to $OUT/logs.tar.gz, the
# store to $OUT/layernorm-search.db, the cheat record to $OUT/; a summary is last.
#   LAYERNORM_MINUTES  the search's budget (default 3); SEED (default 1)
#   BENCH_PROPERTY_COUNT  schedules per problem at the bench size (default 3)
#   SKIP_CHEATS  set to leave out the cheating-kernel corpus
set -u
cd "$(dirname "$0")/.."
source bench/gpu_env.sh
LOGS=/tmp/verification-logs
rm -rf "$LOGS" && mkdir -p "$LOGS" "$OUT"
summary="$LOGS/summary.txt"
: > "$summary"
note() { printf '%-48s %s\n' "$1" "$2" | tee -a "$summary"; }

timeout 120 gpu_runtime_tests --gtest_filter='*Cut*' --gtest_brief=1 > "$LOGS/cut_test.log" 2>&1
note "timing cut GPU test" "$(grep -E 'PASSED|FAILED' "$LOGS/cut_test.log" | tail -1)"

if [ -z "${SKIP_CHEATS:-}" ]; then
  SANITIZE_BESTS=1 OUT="$LOGS/cheats" timeout 300 bash bench/check_cheats.sh > "$LOGS/check_cheats.log" 2>&1
  note "cheat corpus through check" "$(grep -cE ' pass$' "$LOGS/check_cheats.log") pass, $(grep -cE ' fail$' "$LOGS/check_cheats.log") fail, $(grep -cE ' skipped$' "$LOGS/check_cheats.log") audit (CPU)"
  note "gpu_cheat_tests (corpus, sanitizer on bests)" "$(grep -E '^\[  (PASSED|FAILED)' "$LOGS/cheats/gpu_cheat_tests.log" | tr '\n' ' ')"
  cp bench/results/*-cheat-corpus*.json "$OUT/" 2>/dev/null
fi

db="$OUT/layernorm-search.db"
rm -f "$db"
timeout 220 cusched search -p layernorm --budget-minutes "${LAYERNORM_MINUTES:-3}" --rounds 100 --seed "${SEED:-1}" \
    --no-audit --no-sanitize --db "$db" > "$LOGS/layernorm_search.log" 2>&1
note "layernorm search exit code" "$?"
python3 - "$db" <<'PY' | tee -a "$summary"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("select verdict, count(*) from evaluations group by verdict").fetchall()
print("layernorm search verdicts:", ", ".join(f"{v} {n}" for v, n in rows))
for cid, v, a, r in c.execute("select candidate, verdict, max_abs_error, max_rel_error from evaluations "
                               "where verdict not in ('ok', 'invalid_schedule')"):
    print(f"  candidate {cid}: {v} max_abs {a} max_rel {r}")
PY
CUSCHED_GPU_BENCH_PROPERTY_COUNT=${BENCH_PROPERTY_COUNT:-3} timeout 150 gpu_property_tests \
    --gtest_filter='Algorithms/GpuBenchSizeScheduleProperty.*' > "$LOGS/bench_property.log" 2>&1
note "bench-size random schedules" "$(grep -E 'bench-size schedules checked|^\[  (PASSED|FAILED)' "$LOGS/bench_property.log" | tr '\n' ' ')"
tar -czf "$OUT/logs.tar.gz" -C "$LOGS" .
echo "== summary"; cat "$summary"
