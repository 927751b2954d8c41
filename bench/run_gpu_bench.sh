#!/bin/bash
# The one command for the GPU machine: GPU tests, every problem's best schedule at the
# benchmark size, PyTorch eager and torch.compile on the same shapes with the same
# protocol, the output comparison through .npy files, and a benchmark record
# ($OUT/results/DATE-NAME.json, bench/record.schema.json; copy it to bench/results/ and run
# bench/make_tables.py). Needs .carry/gpu from bench/prepare_gpu_carry.sh. Logs under $OUT.
#   RECORD_NAME  what the run measures, the record's name (default table)
#   PREDICTION   what is expected, written before the run (the record keeps it)
#   TORCH_SETTINGS  PyTorch settings to time, each its own column (default "default":
#                PyTorch's own; add tf32 or fp32, see bench/torch_baselines.py --settings)
#   STRICT=1     also verify every best schedule at the strict 1e-4 tolerance
set -u
cd "$(dirname "$0")/.."
COMMAND_LINE="$(env | grep -E '^(PROBLEMS|COMPILE_PROBLEMS|MODE|SKIP_TESTS|GPU_PROPERTY_COUNT|TORCH_SETTINGS|STRICT)=' | sort | tr '\n' ' ')bash bench/run_gpu_bench.sh"
export CUSCHED_RUN_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -n "${PREDICTION:-}" ] || echo "run_gpu_bench: no PREDICTION given; the record will have none (write it before the run)" >&2
source bench/gpu_env.sh
mkdir -p /tmp/io
PROBLEMS=${PROBLEMS:-"relu gelu sum_dim1_small softmax layernorm matmul"}
COMPILE_PROBLEMS=${COMPILE_PROBLEMS-$PROBLEMS}   # unset: all of PROBLEMS; empty: none
MODE=${MODE:-all}   # all | cusched (GPU tests + cusched runs) | torch (PyTorch side + table)
SKIP_TESTS=${SKIP_TESTS:-0}   # 1: leave out the GPU test suites (the table only)
if [ "$MODE" != torch ] && [ "$SKIP_TESTS" != 1 ]; then
{
  cusched device
  echo "== gpu_runtime_tests"; timeout 300 gpu_runtime_tests --gtest_brief=1 2>&1 | tail -5
  echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT=${GPU_PROPERTY_COUNT:-12} timeout 300 gpu_property_tests --gtest_brief=1 2>&1 | tail -15
} > "$OUT/gpu_tests.log" 2>&1
fi
cusched problems --json > /tmp/problems.json
if [ "$MODE" != torch ]; then
: > "$OUT/runs.jsonl"; : > "$OUT/strict.jsonl"
for p in $PROBLEMS; do
  echo "$(date +%T) cusched run $p" >> "$OUT/gpu_tests.log"
  timeout 150 cusched run -p "$p" -s best --size bench --json --no-audit | python3 -c "import json,sys; d=json.load(sys.stdin); d['problem']='$p'; print(json.dumps(d))" >> "$OUT/runs.jsonl" 2>>"$OUT/gpu_tests.log"
  if [ "${STRICT:-0}" = 1 ]; then
    timeout 150 cusched run -p "$p" -s best --size bench --json --no-audit --strict | python3 -c "import json,sys; d=json.load(sys.stdin); d['problem']='$p'; print(json.dumps(d))" >> "$OUT/strict.jsonl" 2>>"$OUT/gpu_tests.log"
  fi
  rm -rf /tmp/io/$p; cusched run -p "$p" -s best --size small --no-audit --save-io /tmp/io/$p > /dev/null 2>&1
done
fi
if [ "$MODE" != torch ]; then
  # Hand-written kernels through `cusched check`: a correct one and one that leaves a tail unwritten.
  for k in bench/check_kernels/*.cu; do
    echo "== cusched check --problem relu $k" >> "$OUT/gpu_tests.log"
    timeout 120 cusched check --problem relu "$k" --size bench --no-audit >> "$OUT/gpu_tests.log" 2>&1
    echo "exit $?" >> "$OUT/gpu_tests.log"
  done
fi
[ "$MODE" = cusched ] && { cat "$OUT/gpu_tests.log"; exit 0; }
RUNS=$OUT/runs.jsonl; [ "$MODE" = torch ] && RUNS=$C/runs.jsonl
for p in $PROBLEMS; do
  [ -d /tmp/io/$p ] || cusched run -p "$p" -s best --size small --no-audit --save-io /tmp/io/$p > /dev/null 2>&1
done
: > "$OUT/torch.jsonl"
for p in $PROBLEMS; do
  extra=""; case " $COMPILE_PROBLEMS " in *" $p "*) ;; *) extra="--no-compile";; esac
  for settings in ${TORCH_SETTINGS:-default}; do
    timeout 240 python3 bench/torch_baselines.py --problems-json /tmp/problems.json --settings "$settings" $extra "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
  done
  timeout 60 python3 bench/torch_baselines.py --problems-json /tmp/problems.json --size small --no-timing \
      --inputs /tmp/io/$p --outputs /tmp/io/$p --trial 0 "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
done
cp bench/pytorch_cache.json "$OUT/" 2>/dev/null   # the PyTorch timing cache, to commit with the record
record=$(python3 bench/make_record.py --runs "$RUNS" --torch "$OUT/torch.jsonl" --strict-runs "$OUT/strict.jsonl" \
    --problems-json /tmp/problems.json --name "${RECORD_NAME:-table}" --command "$COMMAND_LINE" \
    --prediction "${PREDICTION:-}" --out-dir "$OUT/results")
echo "record: $record"
python3 - "$record" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    t = (x.get("pytorch") or [{}])[0]
    print("%-22s %-12s %8s ms  eager %s  compile %s" % (x["problem"], x["verdict"], x["cusched_ms"]["median"], t.get("eager_ms"), t.get("compile_ms")))
PY
