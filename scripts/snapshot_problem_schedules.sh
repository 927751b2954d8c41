#!/bin/sh
# Writes the normalised steps of every problem's baseline and best schedule at both
# sizes, as `cusched validate` prints them, one JSON file per (problem, schedule, size)
# under OUTDIR. Two snapshots compare with `diff -r`.
# Usage: scripts/snapshot_problem_schedules.sh path/to/cusched OUTDIR
set -eu
cusched=$1
out=$2
mkdir -p "$out"
for p in $("$cusched" problems | awk 'NR > 1 && NF > 0 {print $1}'); do
  for s in baseline best; do
    for size in small bench; do
      "$cusched" validate -p "$p" -s "$s" --size "$size" > "$out/$p.$s.$size.json" 2>&1 || true
    done
  done
done
