#!/bin/bash
# Builds cusched with its tests (warnings are errors; a unity build, which compiles the
# sources of a target in batches and so builds several times faster from clean) and runs them: the schedule-parser
# fuzzer for a fixed budget (CUSCHED_FUZZ_SECONDS, default 60), CTest, then the install test
# (scripts/test_install.sh: the examples built and run against the installed package;
# its summary is the last lines).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --tests
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DCUSCHED_BUILD_TESTS=ON -DCUSCHED_WERROR=ON
cmake --build build-test -j"$(nproc)"
status=0
failed=""
if [ -x tests/fuzz/run_fuzz.sh ]; then
  tests/fuzz/run_fuzz.sh "${CUSCHED_FUZZ_SECONDS:-60}" || { status=1; failed="$failed fuzz"; }
fi
(cd build-test && ctest --output-on-failure -j"$(nproc)" --timeout 900) || { status=1; failed="$failed ctest"; }
# The installed package: install into a temporary prefix, build and run the examples against it.
scripts/test_install.sh build-test || { status=1; failed="$failed install"; }
# The steps' verdicts last, so that the end of the log says which step failed.
if [ -n "$failed" ]; then echo "test.sh: failed:$failed"; else echo "test.sh: fuzz, ctest and install test passed"; fi
exit $status
