#!/bin/bash
# LayerNorm with the statistics reduced over a cluster per row
# (bench/experiments/layernorm_moments, one moments kernel instead of two), and the warp stall
# reasons of the generated wgmma matmul, its hand probe and cuBLAS TF32 by instruction
# (Nsight Compute source counters). Needs .carry/gpu. Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/layernorm_moments/gen_variants.py clusters   # writes the variants next to itself
VARIANTS="layernorm:layernorm_moments" VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh
python3 bench/experiments/handwritten/gen_matmul_wgmma_ct.py /tmp/probe.cu --inflight 1 --stages 4
source bench/experiments/ncu_common.sh
stalls mm_cusched '^k0_C' 0 cusched run -p matmul -s best --size bench --no-audit
stalls mm_probe 'matmul_kernel' 0 cusched check -p matmul --size bench --no-audit --precision tf32 /tmp/probe.cu
cat > /tmp/cublas_tf32.py <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = True
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
for _ in range(3): c = a @ b
torch.cuda.synchronize()
PY
stalls mm_cublas 'gemm|xmma' 2 python3 /tmp/cublas_tf32.py
rm -f "$OUT"/*.ncu-rep
