#!/bin/bash
# Installs the Debian 12 packages cusched builds and tests with.
# The CUDA 13 toolkit is expected at /usr/local/cuda (NVRTC and headers; no GPU needed).
set -euo pipefail
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
PKGS="cmake g++ make clang-19 libclang-19-dev libclang-rt-19-dev llvm-19-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev
      libcurl4-openssl-dev libcpp-httplib-dev libgtest-dev libopenmpi-dev openmpi-bin"
[ "${1:-}" = "--tests" ] && PKGS="$PKGS chromium python3 python3-jsonschema python3-numpy clang-format-19 nodejs"
# npm for the MCP test's official SDK client; a nodejs that brings its own npm needs no package.
[ "${1:-}" = "--tests" ] && ! command -v npm >/dev/null 2>&1 && PKGS="$PKGS npm"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
if [ ! -f /usr/local/cuda/include/nvrtc.h ]; then
  echo "cusched needs the CUDA 13 toolkit at /usr/local/cuda (NVRTC and headers); install it from NVIDIA's repository." >&2
  exit 1
fi
