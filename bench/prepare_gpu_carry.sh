#!/bin/bash
# Builds the GPU-side binaries here (Release, unity, audit off, stripped) and gathers them,
# with the shared libraries they need beyond glibc and libstdc++, into .carry/gpu/
# for the GPU machine. Usage: bench/prepare_gpu_carry.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
cmake -S . -B "$B" ${CMAKE_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_LAUNCHER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DCUSCHED_WITH_AUDIT=OFF -DCUSCHED_BUILD_TESTS=ON -DCUSCHED_WERROR=ON >/dev/null
cmake --build "$B" -j2 --target cusched cusched-worker gpu_runtime_tests gpu_property_tests gpu_cheat_tests
rm -rf .carry/gpu && mkdir -p .carry/gpu/bin .carry/gpu/lib
for f in "$B/tools/cusched" "$B/runtime/cusched-worker" "$B/tests/gpu_runtime/gpu_runtime_tests" \
         "$B/tests/gpu_property/gpu_property_tests" "$B/tests/gpu_cheats/gpu_cheat_tests"; do
  cp "$f" .carry/gpu/bin/ && strip .carry/gpu/bin/"$(basename "$f")"
done
# Libraries not found on the device image: everything but the C/C++ runtime and NVRTC.
for lib in $(ldd .carry/gpu/bin/* | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libpthread*|libdl*|librt*|libnvrtc*) ;;
    *) cp -L "$lib" .carry/gpu/lib/ ;;
  esac
done
du -sh .carry/gpu
