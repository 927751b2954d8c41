#!/bin/bash
# Drives the installed `cusched` command on a problem file, from the first check of its
# automatic baseline schedule to an exported kernel, without a GPU:
#   validate -> lower -> run in the CPU interpreter -> search (2 rounds) -> report -> export
#
#   examples/problem-file-cli/run.sh [PROBLEM] [WORK_DIR]
#
# PROBLEM is what `cusched -p` takes: a problem file (default rownorm.json beside this
# script: the row-wise L2 normalisation, stages only, no schedule) or a built-in name; WORK_DIR receives the emitted
# CUDA, the search store, the HTML report and the exported kernel (default: a new
# temporary folder). CUSCHED names the command (default: `cusched` on PATH).
set -euo pipefail
problem=${1:-$(dirname "$0")/rownorm.json}
work=${2:-$(mktemp -d)}
cusched=${CUSCHED:-cusched}
mkdir -p "$work"

step() { printf '\n== %s\n' "$*"; }

step "describe: the stages, their loops and extents, the kernel contract, the baseline"
"$cusched" problems --describe "$problem"

step "validate: the baseline schedule is legal at the small size"
"$cusched" validate -p "$problem" -s baseline --size small --format text

step "lower: the loop IR and the CUDA source"
"$cusched" lower -p "$problem" -s baseline --size small --emit ir | sed -n 1,20p
"$cusched" lower -p "$problem" -s baseline --size small --emit cuda > "$work/baseline.cu"
echo "wrote $work/baseline.cu ($(wc -l < "$work/baseline.cu") lines)"

step "run: verified in the CPU interpreter against the float64 evaluation"
"$cusched" run -p "$problem" -s baseline --backend interp

step "search: two rounds with the built-in proposer, verified in the interpreter"
"$cusched" search -p "$problem" --backend interp --rounds 2 --ideas 2 --per-idea 2 --db "$work/search.db"

step "report: every candidate of the run as HTML"
"$cusched" report "$work/search.db" -o "$work/report.html"

step "export: the best candidate as a standalone .cu file"
"$cusched" export "$work/search.db" -o "$work/kernel.cu"
grep -c "cusched_launch" "$work/kernel.cu" > /dev/null

printf '\nall steps passed for %s; results in %s\n' "$problem" "$work"
