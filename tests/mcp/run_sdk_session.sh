#!/bin/bash
# Installs the official MCP TypeScript SDK into the build tree (once) and runs
# sdk_session.mjs against `cusched mcp`. Exits 77 (skipped) with a one-line reason when
# node or npm is missing or npm cannot reach the registry.
# Usage: run_sdk_session.sh CUSCHED_BINARY SDK_DIR
set -uo pipefail
cusched=$1
sdk_dir=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node and npm are not installed (scripts/install_deps.sh --tests installs them)"
  exit 77
fi
mkdir -p "$sdk_dir"
if [ ! -f "$sdk_dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  [ -f "$sdk_dir/package.json" ] || echo '{"name": "cusched-mcp-sdk-test", "private": true, "type": "module"}' >"$sdk_dir/package.json"
  if ! timeout 300 npm install --prefix "$sdk_dir" --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/sdk@^1" >"$sdk_dir/npm-install.log" 2>&1; then
    echo "SKIP: npm cannot install @modelcontextprotocol/sdk (no registry access?): $(tail -n 1 "$sdk_dir/npm-install.log")"
    exit 77
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The script is run from the SDK folder so that Node resolves the package there.
cp "$here/sdk_session.mjs" "$sdk_dir/sdk_session.mjs"
node "$sdk_dir/sdk_session.mjs" "$cusched" "$work"
