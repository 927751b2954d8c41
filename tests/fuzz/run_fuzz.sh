#!/usr/bin/env bash
# Builds the fuzzers (libFuzzer + ASan, clang-19) in their own build directory and
# runs each for a fixed time budget: the schedule JSON checker over tests/fuzz/corpus,
# the proposal stream (file proposer lines, LLM replies) over corpus_proposals, the
# .npy reader over corpus_npy, and problem files and stage text over corpus_problems.
# Exits non-zero when a fuzzer finds a crash; the crashing input is left under
# <build>/fuzz-work/<target>/artifacts/.
#
# Usage: tests/fuzz/run_fuzz.sh [seconds]
#   seconds           time budget per target (default 60, or $FUZZ_SECONDS)
#   FUZZ_BUILD_DIR    build directory (default <repo>/build-fuzz)
#   FUZZ_JOBS         parallel compile jobs (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-${FUZZ_SECONDS:-60}}
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCUSCHED_FUZZ=ON -DCUSCHED_WITH_AUDIT=OFF >/dev/null
cmake --build "$build" --target schedule_json_fuzz proposal_stream_fuzz npy_reader_fuzz problem_file_fuzz -j "$jobs"

# New inputs go to a scratch corpus in the build directory; the checked-in
# corpora are read only and stay the seed sets.
# A target that finds a crash, a timeout or an out-of-memory input names it and prints
# the input (base64) so that a log alone reproduces it; the other targets still run.
crashed=""
run_target() {
  local target=$1 seeds=$2 dict=$3
  local work="$build/fuzz-work/$target"
  mkdir -p "$work/corpus" "$work/artifacts"
  if ! "$build/tests/fuzz/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 ${dict:+-dict="$dict"} \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" "$seeds"; then
    crashed="$crashed $target"
    for f in "$work"/artifacts/*; do
      [ -f "$f" ] || continue
      echo "run_fuzz.sh: $target: $(basename "$f") (base64): $(head -c 4096 "$f" | base64 -w0)"
    done
  fi
}
run_target schedule_json_fuzz "$root/tests/fuzz/corpus" "$root/tests/fuzz/schedule.dict"
run_target proposal_stream_fuzz "$root/tests/fuzz/corpus_proposals" "$root/tests/fuzz/schedule.dict"
run_target npy_reader_fuzz "$root/tests/fuzz/corpus_npy" ""
run_target problem_file_fuzz "$root/tests/fuzz/corpus_problems" "$root/tests/fuzz/problem.dict"
if [ -n "$crashed" ]; then
  echo "run_fuzz.sh: failed:$crashed (inputs under $build/fuzz-work/<target>/artifacts/)"
  exit 1
fi
echo "run_fuzz.sh: no crash in ${seconds}s per target"
