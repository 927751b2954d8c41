#!/bin/bash
# Evaluates folders of hand-written schedule variants on the GPU machine, one
# `cusched search --proposer file` per problem (one worker, so inputs and the
# float64 reference are generated once per problem), and prints a table of the
# verified medians. Usage: VARIANTS="softmax sum_dim1" bash bench/experiments/run_variants.sh
# (an entry PROBLEM:FOLDER takes the variants from bench/experiments/FOLDER).
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
VDIR=${VDIR:-$OUT}   # where the stores and logs go
mkdir -p "$VDIR"
for entry in ${VARIANTS:-softmax sum_dim1 matmul gemm_add_relu}; do
  p=${entry%%:*} folder=${entry#*:} tag=${folder//\//_}
  start=$(date +%s)
  timeout ${VARIANT_TIMEOUT:-300} cusched search -p "$p" --proposer file --proposals bench/experiments/$folder \
      --rounds 1 --ideas 64 --per-idea 1 --threads 8 --no-audit --db "$VDIR/variants_$tag.db" > "$VDIR/variants_$tag.log" 2>&1
  echo "== $entry: exit $? after $(( $(date +%s) - start )) s"
  python3 - "$VDIR/variants_$tag.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for idea, verdict, ms, pct, reason in db.execute(
    "select i.text, e.verdict, e.median_ms, e.pct_of_floor, e.reason from candidates c join evaluations e on e.candidate = c.id "
    "left join ideas i on i.id = c.idea order by coalesce(e.median_ms, 1e9)"):
    print(f"  {ms if ms is not None else float('nan'):9.4f} ms {pct or 0:6.1f}%  {verdict:14s} {idea[:70]}" + ("" if verdict == "ok" else "  " + reason[:120]))
PY
done
