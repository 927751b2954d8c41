#!/bin/bash
# KernelBench on the GPU machine in one command: the problem files checked against their
# PyTorch modules (bench/kernelbench_verify.py, at a reduced shape where the working set
# exceeds MAX_GIB) and, with TIME_FILES, those files' kernels timed against the modules
# (bench/kernelbench_bench.py). Needs .carry/gpu (bench/prepare_gpu_carry.sh) and a
# KernelBench checkout at .carry/kernelbench. Records go to $OUT/results; a summary is last.
#   VERIFY_FILES  files to check (default: every problems/kernelbench/**/*.json)
#   TIME_FILES    files to time (default: none)
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
python3 bench/kernelbench_verify.py "${K[@]}" --work /dev/shm/kbv --max-gib "${MAX_GIB:-0.25}" --jobs "${JOBS:-12}" \
    --time-limit "${VERIFY_SECONDS:-240}" --name "$NAME-verify" --prediction "${PREDICTION:-}" $VERIFY_FILES \
    > "$OUT/verify.log" 2>&1
if [ -n "${TIME_FILES:-}" ]; then
  python3 bench/kernelbench_bench.py --kernelbench .carry/kernelbench --out-dir "$OUT/results" \
      --time-limit "${TIME_SECONDS:-240}" --name "$NAME-bench" --strict $TIME_FILES > "$OUT/bench.log" 2>&1
fi
echo "== verify: files that did not match at both tolerances"
grep -v '^{' "$OUT/verify.log" | grep -v " pass   pass " | tail -40
[ -n "${TIME_FILES:-}" ] && { echo "== bench"; grep -v '^{' "$OUT/bench.log" | tail -40; }
