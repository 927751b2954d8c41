#!/bin/bash
# The one command for the GPU machine: GPU tests, every problem's best schedule at the
# benchmark size, PyTorch eager and torch.compile on the same shapes with the same
# protocol, the output comparison through .npy files, and the table.
# Needs .carry/gpu from bench/prepare_gpu_carry.sh. Writes logs under $OUT.
set -u
cd "$(dirname "$0")/.."
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
: > "$OUT/runs.jsonl"
for p in $PROBLEMS; do
  echo "$(date +%T) cusched run $p" >> "$OUT/gpu_tests.log"
  timeout 150 cusched run -p "$p" -s best --size bench --json --no-audit | python3 -c "import json,sys; d=json.load(sys.stdin); d['problem']='$p'; print(json.dumps(d))" >> "$OUT/runs.jsonl" 2>>"$OUT/gpu_tests.log"
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
  timeout 240 python3 bench/torch_baselines.py --problems-json /tmp/problems.json $extra "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
  timeout 60 python3 bench/torch_baselines.py --problems-json /tmp/problems.json --size small --no-timing \
      --inputs /tmp/io/$p --outputs /tmp/io/$p --trial 0 "$p" >> "$OUT/torch.jsonl" 2>>"$OUT/torch.log"
done
python3 bench/make_table.py "$RUNS" "$OUT/torch.jsonl" | tee "$OUT/table.md"
