#!/bin/bash
# Hardware counters (Nsight Compute, clocks left alone) of the
# generated matmul, softmax and LayerNorm kernels and of cuBLAS's TF32 matmul kernel, to
# see which unit bounds each. Needs .carry/gpu. Writes $OUT/ncu_*.txt.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
source bench/experiments/ncu_common.sh
echo "ncu: $NCU"; $NCU --version | tail -1
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
prof() {  # name regex count command...
  local name=$1 re=$2 n=$3; shift 3
  timeout 240 $NCU --clock-control none --target-processes all $SECTIONS -k "regex:$re" --launch-count "$n" "$@" > "$OUT/ncu_$name.txt" 2>&1
  echo "== $name rc=$? $(grep -c '^  [A-Za-z_0-9]*.*(\(.*\)x(.*)' "$OUT/ncu_$name.txt") kernels"
}
cat > /tmp/cublas_tf32.py <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = True
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
for _ in range(3): c = a @ b
torch.cuda.synchronize()
PY
prof cublas_tf32 'gemm|xmma|cutlass|sm90' 1 --launch-skip 2 python3 /tmp/cublas_tf32.py
prof matmul '^k0_C' 2 cusched run -p matmul -s best --size bench --no-audit
prof softmax '^k0_' 2 cusched run -p softmax -s best --size bench --no-audit
prof layernorm '^k[0-9]_' 6 cusched run -p layernorm -s best --size bench --no-audit
for f in "$OUT"/ncu_*.txt; do
  echo "######## $(basename $f)"
  grep -E '^  [A-Za-z_0-9]+.*\(|Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\) Throughput|Shared Memory  |Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|One or More Eligible|Block Size|Grid Size|Executed Ipc A|SM Busy|Mem Busy|Max Bandwidth|L2 Compression|Dynamic Shared|Waves Per SM' "$f" | head -80
done
