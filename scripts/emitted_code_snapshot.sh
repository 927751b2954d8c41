#!/usr/bin/env bash
# Writes the IR and CUDA that `cusched lower` emits for every built-in problem's baseline
# and best schedule at both sizes into DIR, one file each (P.S.SIZE.ir, P.S.SIZE.cu), so
# that two trees can be compared with `diff -r DIR1 DIR2`. A schedule that does not lower
# leaves its error JSON in the file instead.
# Usage: scripts/emitted_code_snapshot.sh PATH/TO/cusched DIR
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 PATH/TO/cusched DIR" >&2
  exit 2
fi
bin=$1
out=$2
mkdir -p "$out"
problems=$("$bin" problems --json | python3 -c 'import json, sys; print("\n".join(p["name"] for p in json.load(sys.stdin)))')
for p in $problems; do
  for s in baseline best; do
    for size in small bench; do
      for emit in ir cuda; do
        ext=$([ "$emit" = cuda ] && echo cu || echo ir)
        "$bin" lower -p "$p" -s "$s" --size "$size" --emit "$emit" > "$out/$p.$s.$size.$ext" 2>&1 || true
      done
    done
  done
done
echo "$(ls "$out" | wc -l) files in $out"
