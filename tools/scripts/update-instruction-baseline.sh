#!/usr/bin/env bash
# Regenerates the instruction-count gate's baseline, bench/instructions.toml: every case's count, compiler
# and machine, measured by the build's own fleetwatt under callgrind (`fleetwatt bench --instructions
# --update-baseline`); the cases themselves, their comments and order are kept. The counts are never edited
# by hand. CI compares its gcc Release build with them (.ci/run), so the build must be one too: gcc,
# -DCMAKE_BUILD_TYPE=Release (the README's build; refused otherwise). Run it after a change that moves the
# counts on purpose, or when the gate says a case fell more than the tolerance below its baseline (to keep
# the gain); review the diff, and say in the commit message why a count went up.
# Usage: tools/scripts/update-instruction-baseline.sh BUILD_DIR [--case NAME]...   (BUILD_DIR relative to the
# current folder)
set -euo pipefail

here=$(pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -lt 1 ]; then
  echo "usage: update-instruction-baseline.sh BUILD_DIR [--case NAME]..." >&2
  exit 2
fi
build=$1
shift
case $build in /*) ;; *) build="$here/$build" ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "update-instruction-baseline: $build: not a configured CMake build folder" >&2
  exit 2
fi
# The counts hold for the build CI measures with: gcc, Release.
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
compiler=$(sed -n 's/^set(CMAKE_CXX_COMPILER_ID "\(.*\)")$/\1/p' "$build"/CMakeFiles/*/CMakeCXXCompiler.cmake 2>/dev/null |
  head -n 1)
if [ "$build_type" != Release ] || [ "$compiler" != GNU ]; then
  echo "update-instruction-baseline: $build is a ${compiler:-unknown compiler} ${build_type:-no build type} build;" \
    "the baseline is measured with gcc (GNU), -DCMAKE_BUILD_TYPE=Release, as CI's" >&2
  exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "update-instruction-baseline: valgrind is not on PATH (tools/install-deps.sh installs it)" >&2
  exit 2
fi
cmake --build "$build" --target fleetwatt -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
cd "$root"
"$build/tools/fleetwatt" bench --instructions --update-baseline --baseline bench/instructions.toml "$@"
git --no-pager diff --stat -- bench/instructions.toml 2>/dev/null || true
