#!/bin/bash
# Hand-written softmax variants (bulk copies, chunked copies
# consumed as they land, one warp per cluster reduction) through `cusched check`, and the
# LayerNorm variants of bench/experiments/layernorm_unroll (per-launch times of the best).
# Needs .carry/gpu. Writes softmax_check.txt, layernorm.txt to $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
start=$(date +%s)
{
  echo "== layernorm best, per launch"
  timeout 120 cusched run -p layernorm -s best --no-audit --per-launch 2>&1 | grep -E "verdict|time|k[0-9]_"
  echo "== layernorm variants"
  VDIR=/tmp/lnv; mkdir -p $VDIR
  timeout 200 cusched search -p layernorm --proposer file --proposals bench/experiments/layernorm_unroll --rounds 1 --ideas 64 --per-idea 1 \
      --threads 8 --no-audit --db $VDIR/ln.db > $OUT/layernorm_search.log 2>&1
  python3 - $VDIR/ln.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for idea, verdict, ms in db.execute("select i.text, e.verdict, e.median_ms from candidates c join evaluations e on e.candidate = c.id left join ideas i on i.id = c.idea order by coalesce(e.median_ms, 1e9)"):
    print(f"  {ms if ms is not None else float('nan'):9.4f} ms {verdict:10s} {idea[:60]}")
PY
} > "$OUT/layernorm.txt" 2>&1
H=/tmp/handwritten; rm -rf $H /tmp/checks; mkdir -p /tmp/checks; python3 bench/experiments/handwritten/gen_softmax_variants.py $H
: > "$OUT/softmax_check.txt"
for f in $H/*.cu; do
  if [ $(( $(date +%s) - start )) -gt ${DEADLINE_S:-540} ]; then echo "$(basename $f .cu): skipped (deadline)" >> "$OUT/softmax_check.txt"; continue; fi
  n=$(basename $f .cu); p=${n%%__*}
  timeout 120 cusched check -p $p --size bench --no-audit $f > /tmp/checks/$n.json 2> /tmp/checks/$n.err
  python3 bench/experiments/check_summary.py "$n" "/tmp/checks/$n.json" /tmp/checks/$n.err >> "$OUT/softmax_check.txt"
done
echo "softmax checks: $(( $(date +%s) - start )) s" >> "$OUT/softmax_check.txt"
echo "total: $(( $(date +%s) - start )) s" >> "$OUT/layernorm.txt"
cat "$OUT/softmax_check.txt" "$OUT/layernorm.txt"
