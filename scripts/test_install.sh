#!/bin/bash
# Installs cusched from a build folder into a temporary prefix, then builds and runs
# the examples against that installed package alone (not the source or build tree):
#   examples/rownorm           an out-of-tree CMake project using find_package(cusched)
#   examples/problem-file-cli  the installed `cusched` command driven by a script
#
#   scripts/test_install.sh [BUILD_DIR]   (default: build)
# Prints one line per check and a summary; exits non-zero when any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
build=$(cd "${1:-build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
log=$tmp/log
mkdir -p "$log"
passed=() failed=()

check() {  # check NAME COMMAND...: runs the command, its output in $log/NAME.log
  local name=$1
  shift
  if "$@" > "$log/$name.log" 2>&1; then
    passed+=("$name")
    echo "ok      $name"
  else
    failed+=("$name")
    echo "FAILED  $name (last lines of its output follow)"
    tail -n 30 "$log/$name.log" | sed 's/^/        /'
  fi
}

# The example's compile and link lines name only the prefix: no path into this tree.
uses_only_the_prefix() {
  local project=$1
  ! grep -E -- "$source_dir/(dsl|problems|codegen|audit|runtime|search|include)|$build" \
    "$project/compile_commands.json" "$project"/CMakeFiles/*.dir/link.txt
}

check install cmake --install "$build" --prefix "$prefix"
check installed-layout test -x "$prefix/bin/cusched" -a -x "$prefix/bin/cusched-worker" \
  -a -f "$prefix/include/cusched/cusched.h" -a -f "$prefix/lib/cmake/cusched/cuschedConfig.cmake"

# The examples run from a copy outside the tree, as a user's project would.
cp -r examples "$tmp/examples"
check rownorm-configure cmake -S "$tmp/examples/rownorm" -B "$tmp/rownorm-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
check rownorm-build cmake --build "$tmp/rownorm-build" -j2
check rownorm-uses-only-the-prefix uses_only_the_prefix "$tmp/rownorm-build"
check rownorm-run bash -c "cd '$tmp' && '$tmp/rownorm-build/rownorm' --rounds 1 --db '$tmp/rownorm.db' --out '$tmp/rownorm_kernel.cu'"
check rownorm-exported test -s "$tmp/rownorm_kernel.cu"
check problem-file-cli env -i HOME="$tmp" PATH="$prefix/bin:/usr/bin:/bin" bash "$tmp/examples/problem-file-cli/run.sh" "$tmp/examples/problem-file-cli/rownorm.json" "$tmp/cli"

echo
echo "install test: ${#passed[@]} passed, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}"
[ ${#failed[@]} -eq 0 ]
