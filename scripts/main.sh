#!/bin/bash
# The main job: build cusched and run a search on the default problem (softmax) with
# the built-in proposer. On a machine without a GPU the search verifies candidates in
# the CPU interpreter and ranks them with the cost model, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUSCHED_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)" --target cusched cusched-worker
# The store is named as `cusched search` names it by default: cusched-<problem>.db.
problem=${1:-softmax}
db=${CUSCHED_DB:-cusched-$problem.db}
# A search that stalled (exit 6) or spent its budget (exit 5) has finished with its best;
# the report is written for it as for one that ran every round.
status=0
./build/tools/cusched search --problem "$problem" --db "$db" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 5 ] && [ "$status" -ne 6 ]; then
  exit "$status"
fi
./build/tools/cusched report "$db" -o cusched-report.html
echo "report: cusched-report.html"
