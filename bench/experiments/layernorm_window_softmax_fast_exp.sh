#!/bin/bash
# LayerNorm's partial moments read as a moving window (the 64
# partials of a row side by side in each channel plane) against the control, and the
# generated softmax kernels with fast exp (__expf) and/or a reciprocal instead of the
# division, through `cusched check`. Needs .carry/gpu. Writes checks.txt, layernorm.txt.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
start=$(date +%s)
{
  echo "== layernorm moving-window variants"
  timeout 200 cusched search -p layernorm --proposer file --proposals bench/experiments/layernorm_unroll/window --rounds 1 --ideas 64 \
      --per-idea 1 --threads 8 --no-audit --db /tmp/lnw.db > $OUT/layernorm_search.log 2>&1
  python3 - /tmp/lnw.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for idea, verdict, ms in db.execute("select i.text, e.verdict, e.median_ms from candidates c join evaluations e on e.candidate = c.id left join ideas i on i.id = c.idea order by coalesce(e.median_ms, 1e9)"):
    print(f"  {ms if ms is not None else float('nan'):9.4f} ms {verdict:10s} {idea[:70]}")
PY
  for f in ln_window_rows_outer ln_window_parts_outer; do
    echo "== per launch $f"; timeout 100 cusched run -p layernorm -s bench/experiments/layernorm_unroll/window/$f.json --no-audit --per-launch 2>&1 | grep -E "verdict|time|k[0-9]_"
  done
} > "$OUT/layernorm.txt" 2>&1
H=/tmp/fm; rm -rf $H /tmp/checks; mkdir -p $H /tmp/checks
for p in softmax softmax_large; do
  cusched lower -p $p -s best --size bench --emit cuda | sed 's/k0_Y(/'$p'_kernel(/' > $H/${p}__generated.cu
  grid=$(grep -o "grid ([0-9]*, [0-9]*, 1)" $H/${p}__generated.cu | head -1 | tr -d 'grid() ' )
  block=$(grep -o "block ([0-9]*, 1, 1)" $H/${p}__generated.cu | head -1 | tr -d 'block() ')
  smem=$(grep -o "dynamic_smem [0-9]*" $H/${p}__generated.cu | head -1 | awk '{print $2}')
  echo "// cusched-launch size=bench grid=$grid block=$block smem=${smem:-0}" >> $H/${p}__generated.cu
  sed 's/\bexpf(/__expf(/g' $H/${p}__generated.cu > $H/${p}__fastexp.cu
  sed 's|) / S\[0\]|) * __frcp_rn(S[0])|g' $H/${p}__generated.cu > $H/${p}__reciprocal.cu
  sed 's|) / S\[0\]|) * __frcp_rn(S[0])|g' $H/${p}__fastexp.cu > $H/${p}__fastexp_reciprocal.cu
done
grep -c "__expf\|__frcp_rn" $H/*.cu > $OUT/checks.txt
for f in $H/softmax__*.cu $H/softmax_large__*.cu; do
  n=$(basename $f .cu); p=${n%%__*}
  if [ $(( $(date +%s) - start )) -gt ${DEADLINE_S:-420} ]; then echo "$n: skipped (deadline)" >> "$OUT/checks.txt"; continue; fi
  timeout 90 cusched check -p $p --size bench --no-audit $f > /tmp/checks/$n.json 2> /tmp/checks/$n.err
  python3 bench/experiments/check_summary.py "$n" "/tmp/checks/$n.json" /tmp/checks/$n.err >> "$OUT/checks.txt"
done
echo "total: $(( $(date +%s) - start )) s" >> "$OUT/checks.txt"
cat "$OUT/layernorm.txt" "$OUT/checks.txt"
