#!/bin/bash
# The GPU-side checks in one command, for a machine with an H200 and the carried binaries
# (bench/prepare_gpu_carry.sh): the GPU test suites (runtime, schedule properties,
# cheating-kernel corpus), the corpus through `cusched check` (bench/check_cheats.sh),
# the test problem files verified on the GPU from their baselines, shapes given on the
# command line, and compute-sanitizer on softmax's best schedule (cluster reduction).
# Logs go to $OUT; a summary table is printed last.
#
#   source bench/gpu_env.sh && bash bench/gpu_checks.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cusched-out}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: > "$summary"
note() { printf '%-52s %s\n' "$1" "$2" | tee -a "$summary"; }
suite() {
  local name=$1; shift
  if timeout 300 "$@" --gtest_brief=1 > "$OUT/$name.log" 2>&1; then note "$name" "$(grep -E 'PASSED' "$OUT/$name.log" | tail -1)"
  else note "$name" "FAILED: $(grep -E '^\[  FAILED  \]' "$OUT/$name.log" | head -5 | tr '\n' ' ')"; fi
}
# The verdict (or error code) and the median time of a `cusched ... --json` reply.
outcome() {
  python3 -c '
import json, sys
try: d = json.load(sys.stdin)
except Exception: print("no-json"); sys.exit()
def find(o, k):
    if isinstance(o, dict):
        if k in o and not isinstance(o[k], (dict, list)): return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None: return r
    if isinstance(o, list):
        for v in o:
            r = find(v, k)
            if r is not None: return r
    return None
print(find(d, "verdict") or find(d, "code"), find(d, "median_ms") or "")'
}
suite gpu_runtime_tests gpu_runtime_tests
CUSCHED_GPU_PROPERTY_COUNT=${PROPERTY_COUNT:-2} suite gpu_property_tests gpu_property_tests
OUT="$OUT/cheats" bash bench/check_cheats.sh > "$OUT/check_cheats.log" 2>&1
note "cheat corpus through check (pass/fail rows)" "$(grep -cE ' pass$' "$OUT/check_cheats.log") pass, $(grep -cE ' fail$' "$OUT/check_cheats.log") fail"
cp bench/results/*-cheat-corpus*.json "$OUT/" 2>/dev/null
for f in tests/problems/data/*.json; do
  v=$(timeout 120 cusched run -p "$f" -s baseline --json 2> "$OUT/$(basename "$f" .json).err" | outcome)
  note "problem file $(basename "$f") baseline on the GPU" "$v"
done
for args in "-p softmax -s best --shape R=1000,D=65536" "-p matmul -s best --shape M=1000,N=1000,K=1000" "-p layernorm -s baseline --shape B=3,C=7,H=33,W=17"; do
  v=$(timeout 120 cusched run $args --json 2>"$OUT/run_shape.err" | outcome)
  note "run $args" "$v"
done
v=$(timeout 60 cusched run -p relu -s baseline --shape B=100000,C=100000,H=10,W=10 --json 2>"$OUT/run_shape.err" | outcome)
note "run relu at a shape beyond device memory" "$v"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 240 "$SAN" --tool racecheck --print-limit 3 cusched run -p softmax -s best --size small > "$OUT/softmax_racecheck.log" 2>&1
note "racecheck, softmax best (small)" "$(grep -E 'RACECHECK SUMMARY' "$OUT/softmax_racecheck.log" | tail -1)"
timeout 120 cusched run -p softmax -s best > "$OUT/softmax_best.log" 2>&1
note "softmax best at the bench size" "$(grep -E '^(verdict|time)' "$OUT/softmax_best.log" | tr -s ' ' | tr '\n' ' ')"
echo; echo "== summary"; cat "$summary"
