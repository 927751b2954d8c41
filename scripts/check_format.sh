#!/bin/bash
# Checks that the C++ sources are formatted by .clang-format (clang-format-19). The test
# corpora (tests/cheats, tests/malformed, tests/legality, data/ folders) are inputs kept as
# written and are not formatted. With --fix, formats them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$fmt" >/dev/null; then
  echo "check_format: $fmt is not installed (scripts/install_deps.sh --tests installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v -E '^tests/(cheats|malformed|legality)/|/data/')
if [ "${1:-}" = --fix ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
if ! "$fmt" --dry-run -Werror "${files[@]}" 2>/tmp/check_format.$$; then
  grep -E '^[^ ].*: error' /tmp/check_format.$$ | cut -d: -f1 | sort -u | head -20 >&2
  rm -f /tmp/check_format.$$
  echo "check_format: the files above are not formatted; run scripts/check_format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/check_format.$$
echo "check_format: ${#files[@]} files formatted"
