#!/usr/bin/env bash
# Builds the schedule JSON fuzzer (libFuzzer + ASan, clang-19) in its own build
# directory and runs it over tests/fuzz/corpus for a fixed time budget. Exits
# non-zero when the fuzzer finds a crash; the crashing input is left under
# <build>/fuzz-work/artifacts/.
#
# Usage: tests/fuzz/run_fuzz.sh [seconds]
#   seconds           time budget (default 60, or $FUZZ_SECONDS)
#   FUZZ_BUILD_DIR    build directory (default <repo>/build-fuzz)
#   FUZZ_JOBS         parallel compile jobs (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-${FUZZ_SECONDS:-60}}
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCUSCHED_FUZZ=ON -DCUSCHED_WITH_AUDIT=OFF >/dev/null
cmake --build "$build" --target schedule_json_fuzz -j "$jobs"

# New inputs go to a scratch corpus in the build directory; the checked-in
# corpus is read only and stays the seed set.
work="$build/fuzz-work"
mkdir -p "$work/corpus" "$work/artifacts"
"$build/tests/fuzz/schedule_json_fuzz" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/tests/fuzz/schedule.dict" \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$work/corpus" "$root/tests/fuzz/corpus"
echo "run_fuzz.sh: no crash in ${seconds}s"
