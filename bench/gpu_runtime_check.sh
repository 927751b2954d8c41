#!/bin/bash
# Runs the runtime's tests on a GPU machine, from binaries built elsewhere and
# carried in .carry/runtime/ (cusched-worker, runtime_tests, gpu_runtime_tests,
# and optionally cusched). Logs and GoogleTest XML go to $OUT (default ./gpu-check-out).
#
#   bash bench/gpu_runtime_check.sh
#
# Needs on that machine: an NVIDIA driver (libcuda.so.1) and the CUDA 13 NVRTC
# library (libnvrtc.so.13), found under /usr/local/cuda or located with find.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/.carry/runtime"
out="${OUT:-$here/gpu-check-out}"
mkdir -p "$out"

nvrtc_dir=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib; do
  if [ -e "$d/libnvrtc.so.13" ]; then nvrtc_dir=$d; break; fi
done
if [ -z "$nvrtc_dir" ]; then
  found=$(find /usr /opt -name 'libnvrtc.so.13' 2>/dev/null | head -1)
  [ -n "$found" ] && nvrtc_dir=$(dirname "$found")
fi
export LD_LIBRARY_PATH="${nvrtc_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUSCHED_WORKER="$bin/cusched-worker"
export CUSCHED_CACHE_DIR="${TMPDIR:-/tmp}/cusched-cubin-check"
[ -d /usr/local/cuda/include ] || export CUSCHED_CUDA_INCLUDE="$(dirname "$(find /usr /opt -name cuda_runtime.h 2>/dev/null | head -1)")"

{
  echo "host: $(uname -a)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  echo "nvrtc dir: $nvrtc_dir"
  echo "cuda include: ${CUSCHED_CUDA_INCLUDE:-/usr/local/cuda/include}"
  ldd "$bin/gpu_runtime_tests" 2>&1
  ls -l "$nvrtc_dir"/libnvrtc* 2>&1
} > "$out/env.log"

status=0
if [ -x "$bin/cusched" ]; then
  "$bin/cusched" device > "$out/device.log" 2>&1; echo "exit code $?" >> "$out/device.log"
fi
timeout 120 "$bin/runtime_tests" --gtest_output="xml:$out/runtime_tests.xml" > "$out/runtime_tests.log" 2>&1 || status=1
timeout 360 "$bin/gpu_runtime_tests" --gtest_output="xml:$out/gpu_runtime_tests.xml" > "$out/gpu_runtime_tests.log" 2>&1 || status=1
# The NVRTC tests once more with the driver's compute cache off, for comparison.
CUDA_CACHE_DISABLE=1 timeout 60 "$bin/runtime_tests" --gtest_filter='NvrtcCompilerTest.*' > "$out/nvrtc_no_cache.log" 2>&1
tail -n 5 "$out/runtime_tests.log"
tail -n 3 "$out/nvrtc_no_cache.log"
cat "$out/gpu_runtime_tests.log"
exit $status
