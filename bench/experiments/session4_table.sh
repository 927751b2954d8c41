#!/bin/bash
# Session-4 device call: the PyTorch side of the side-by-side table for problems whose
# cusched timings come from a variants call (bench/experiments/session4_best_runs.jsonl,
# written by session4_variants.sh): eager and torch.compile timed with the same protocol,
# and PyTorch's outputs compared with the winning variant's on the same .npy inputs.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
RUNS=bench/experiments/session4_best_runs.jsonl
cusched problems --json > /tmp/problems.json
: > "$OUT/torch.jsonl"
start=$(date +%s)
for p in ${PROBLEMS:-$(python3 -c "import json; print(' '.join(json.loads(l)['problem'] for l in open('$RUNS')))")}; do
  if [ $(( $(date +%s) - start )) -gt ${DEADLINE_S:-420} ]; then echo "$p: skipped (deadline)" >> "$OUT/torch.log"; continue; fi
  v=$(python3 -c "import json; print([json.loads(l)['variant'] for l in open('$RUNS') if json.loads(l)['problem']=='$p'][0])")
  rm -rf /tmp/io/$p; cusched run -p "$p" -s "bench/experiments/$p/$v" --size small --no-audit --save-io /tmp/io/$p > /dev/null 2>>"$OUT/torch.log"
  extra=""; case " ${NO_COMPILE:-} " in *" $p "*) extra="--no-compile";; esac
  timeout 200 python3 bench/torch_baselines.py --problems-json /tmp/problems.json $extra "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
  timeout 60 python3 bench/torch_baselines.py --problems-json /tmp/problems.json --size small --no-timing \
      --inputs /tmp/io/$p --outputs /tmp/io/$p --trial 0 "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
done
python3 bench/make_table.py "$RUNS" "$OUT/torch.jsonl" | tee "$OUT/table.md"
