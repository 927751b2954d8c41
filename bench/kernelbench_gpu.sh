#!/bin/bash
# KernelBench on the GPU machine in one command: the problem files checked against their
# PyTorch modules (bench/kernelbench_verify.py, at a reduced shape where the working set
# exceeds MAX_GIB), with TIME_FILES those files' kernels timed against the modules
# (bench/kernelbench_bench.py), and with SEARCH_SECONDS the built-in search's kernels
# (bench/kernelbench_search.py) of the files without a row of its budget in bench/results,
# started for that many seconds. Needs .carry/gpu (bench/prepare_gpu_carry.sh) and a
# KernelBench checkout at .carry/kernelbench. Records go to $OUT/results; a summary is last.
#   VERIFY_FILES  files to check (default: every problems/kernelbench/**/*.json; "none": none)
#   MATCHED_ON    check only the files whose latest check did not match, or ran on a GPU
#                 whose name does not contain this (e.g. H200)
#   TIME_FILES    files to time (default: none)
#   SEARCH_SECONDS, SEARCH_CANDIDATES, SEARCH_BUDGET_S  search: start no file after this many
#                 seconds (default: no search); candidates and seconds per file (24, 25)
#   SEARCH_FILES  files to search (default: every file, level 2 first, less those with a verified
#                 row of the budget in bench/results; SKIP_ANY=1: of any budget; RERUN=1 searches
#                 every listed file)
#   RUN_TIMEOUT   seconds each `cusched run` of the search benchmark may take (default 180, times
#                 PARALLEL: its evaluation waits for its turn on the GPU)
#   PARALLEL      files searched at once, taking turns on the GPU (default 1); each search gets
#                 16 / PARALLEL CPU threads (SEARCH_THREADS overrides)
#   VERIFY_SECONDS, TIME_SECONDS  start no file after this many seconds (default 240, 240)
#   MAX_GIB (default 0.25), JOBS (default 12), NAME (record name prefix, default kernelbench)
#   KERNELBENCH_COMMIT  the checkout's commit when it is a copy without git
#   PREDICTION    what is expected, written before the run
set -u
cd "$(dirname "$0")/.."
source bench/gpu_env.sh
mkdir -p "$OUT/results"
NAME=${NAME:-kernelbench}
K=(--kernelbench .carry/kernelbench --out-dir "$OUT/results")
[ -n "${KERNELBENCH_COMMIT:-}" ] && K+=(--kernelbench-commit "$KERNELBENCH_COMMIT")
VERIFY_FILES=${VERIFY_FILES:-$(ls problems/kernelbench/level*/*.json)}
M=()
[ -n "${MATCHED_ON:-}" ] && M=(--skip-matched bench/results --matched-on "$MATCHED_ON")
if [ "$VERIFY_FILES" != none ]; then
  python3 bench/kernelbench_verify.py "${K[@]}" "${M[@]}" --work /dev/shm/kbv --max-gib "${MAX_GIB:-0.25}" \
      --jobs "${JOBS:-12}" --time-limit "${VERIFY_SECONDS:-240}" --name "$NAME-verify" \
      --prediction "${PREDICTION:-}" $VERIFY_FILES > "$OUT/verify.log" 2>&1
fi
if [ -n "${TIME_FILES:-}" ]; then
  python3 bench/kernelbench_bench.py --kernelbench .carry/kernelbench --out-dir "$OUT/results" \
      --time-limit "${TIME_SECONDS:-240}" --name "$NAME-bench" --strict $TIME_FILES > "$OUT/bench.log" 2>&1
fi
# The searches' logs and stores are copied to $OUT/search-logs however the run ends.
copy_search_logs() {
  mkdir -p "$OUT/search-logs"
  cp /dev/shm/kbs/*.log /dev/shm/kbs/*.db "$OUT/search-logs/" 2>/dev/null
  cp bench/pytorch_cache.json "$OUT/" 2>/dev/null
  true
}
if [ -n "${SEARCH_SECONDS:-}" ]; then
  trap copy_search_logs EXIT TERM INT
  SEARCH_FILES=${SEARCH_FILES:-$(ls problems/kernelbench/level2/*.json | sort -V; ls problems/kernelbench/level1/*.json | sort -V)}
  python3 bench/kernelbench_search.py --kernelbench .carry/kernelbench --out-dir "$OUT/results" \
      --search-candidates "${SEARCH_CANDIDATES:-24}" --search-seconds "${SEARCH_BUDGET_S:-25}" \
      --time-limit "$SEARCH_SECONDS" $([ "${RERUN:-0}" = 1 ] || echo --skip-recorded bench/results) $([ "${SKIP_ANY:-0}" = 1 ] && echo --skip-recorded-any) --work /dev/shm/kbs --name "$NAME-search" \
      --timeout "${RUN_TIMEOUT:-$((180 * ${PARALLEL:-1}))}" --parallel "${PARALLEL:-1}" \
      --search-threads "${SEARCH_THREADS:-$(( $(nproc) / ${PARALLEL:-1} > 0 ? $(nproc) / ${PARALLEL:-1} : 1 ))}" --prediction "${PREDICTION:-}" $SEARCH_FILES > "$OUT/search.log" 2>&1
  copy_search_logs
fi
if [ -f "$OUT/verify.log" ]; then
  echo "== verify: files that did not match at both tolerances"
  grep -v '^{' "$OUT/verify.log" | grep -v " pass   pass " | tail -40
fi
[ -n "${TIME_FILES:-}" ] && { echo "== bench"; grep -v '^{' "$OUT/bench.log" | tail -40; }
[ -n "${SEARCH_SECONDS:-}" ] && { echo "== search"; grep '^{' "$OUT/search.log" | cut -c1-220; tail -5 "$OUT/search.log"; }
true
