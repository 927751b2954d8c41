# Sourced by the GPU-machine scripts from the repository root: puts the carried
# binaries (.carry/gpu from bench/prepare_gpu_carry.sh) and NVRTC on the paths and
# sets OUT (default /tmp/cusched-out), the folder for logs, and CUSCHED_SOURCE_DIR, the tree
# the GPU tests read problem files from.
C=$PWD/.carry/gpu
export OUT=${OUT:-/tmp/cusched-out}
mkdir -p "$OUT"
export CUSCHED_SOURCE_DIR=$PWD PATH=$C/bin:$PATH CUSCHED_WORKER=$C/bin/cusched-worker CUSCHED_CACHE_DIR=/tmp/cusched-cache PYTHONUNBUFFERED=1
NVRTC_DIR=$(dirname "$(find /usr/local/cuda*/ -name 'libnvrtc.so.13' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$C/lib:$NVRTC_DIR:${LD_LIBRARY_PATH:-}
