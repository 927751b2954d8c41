#!/bin/bash
# The best schedules of the given problems at the bench size through bench/run_gpu_bench.sh
# (MODE=cusched, no test suites), one summary line each: problem, verdict, median ms.
# Usage: cusched_runs.sh PROBLEM... (from the repository root after `source bench/gpu_env.sh`).
PROBLEMS="$*" MODE=cusched SKIP_TESTS=1 bash bench/run_gpu_bench.sh > /dev/null 2>&1
python3 - "$OUT/runs.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    t = d.get("gpu") or {}
    print(f"{d['problem']:22s} {d.get('verdict','?'):12s} {t.get('median_ms', float('nan')):8.4f} ms")
PY
