#!/bin/bash
# Builds the CPU test suites with AddressSanitizer and UndefinedBehaviorSanitizer
# (CMake option CUSCHED_SANITIZE) in build-sanitize/ and runs them. Audit and MPI are left
# out of this build (their suites run in the plain build of scripts/test.sh), and so are
# the GPU suites. CUSCHED_SANITIZE_SUITES names the suites (folders of tests/). The default
# subset (the DSL, the problems, lowering and the CUDA emitter, the interpreter: the code
# every evaluation runs through) keeps CI within its time budget on 2 cores; the others
# (runtime, search, CLI, property tests) need the runtime and search libraries built a
# second time. "all" builds and runs every CPU suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --tests
SUITES=${CUSCHED_SANITIZE_SUITES:-"dsl problems codegen interp"}
# -O1 with line tables only: the sanitizers' reports keep their file and line, and the
# build compiles in about 60% of the time of -O2 -g; the suites run in seconds either way.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DCMAKE_UNITY_BUILD=ON -DCUSCHED_BUILD_TESTS=ON -DCUSCHED_SANITIZE=ON -DCUSCHED_WITH_AUDIT=OFF -DCUSCHED_WITH_MPI=OFF -DCUSCHED_WERROR=ON
targets=""; for s in $SUITES; do targets="$targets ${s}_tests"; done
[ "$SUITES" = all ] && targets=all
cmake --build build-sanitize -j"$(nproc)" --target $targets
# protect_shadow_gap=0: the CUDA driver, when present, maps memory where ASan's gap is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan_suppressions.txt}
if [ "$SUITES" = all ]; then
  cd build-sanitize && exec ctest --output-on-failure -j"$(nproc)" -LE gpu --timeout 1500
fi
status=0
for s in $SUITES; do
  start=$(date +%s)
  rc=0
  build-sanitize/tests/$s/${s}_tests --gtest_brief=1 || rc=$?
  [ $rc -ne 0 ] && status=$rc
  echo "sanitized $s: $(( $(date +%s) - start )) s, exit status $rc"
done
exit $status
