#!/bin/bash
# LayerNorm in two kernels (layernorm_moments, set two_kernels): 8, 16 or 32
# partial moments per row from blocks that each sum 8, 4 or 2 channels, combined by every
# normalisation block (48 threads, the partials' loop unrolled). Writes $OUT.
set -u
cd "$(dirname "$0")/../.."
source bench/gpu_env.sh
python3 bench/experiments/layernorm_moments/gen_variants.py two_kernels
VARIANTS="layernorm:layernorm_moments" VARIANT_TIMEOUT=200 bash bench/experiments/run_variants.sh
