#!/bin/bash
# Builds cusched with its tests (warnings are errors) and runs them: CTest (its summary is the last lines),
# then the schedule-parser fuzzer for a fixed budget (CUSCHED_FUZZ_SECONDS, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --tests
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DCUSCHED_BUILD_TESTS=ON -DCUSCHED_WERROR=ON
cmake --build build-test -j"$(nproc)"
status=0
if [ -x tests/fuzz/run_fuzz.sh ]; then
  tests/fuzz/run_fuzz.sh "${CUSCHED_FUZZ_SECONDS:-60}" || status=$?
fi
(cd build-test && ctest --output-on-failure -j"$(nproc)" --timeout 900) || status=$?
exit $status
