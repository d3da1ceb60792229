#!/usr/bin/env bash
# Regenerates every figure of a shipped scenario that the repository keeps, from the build's own fleetwatt:
#  1. tests/golden/<scenario>.json for each workloads/scenarios/*.toml: its /summary values, series statistics
#     and printed counts (fleetwatt_golden_stats, the code the golden test compares with);
#  2. the README's printed blocks: the lines between "<!-- golden: COMMAND -->" and "<!-- golden: end -->",
#     where COMMAND is `fleetwatt run|compare workloads/scenarios/NAME.toml [options]` (run from the repository
#     root; a plain `run` block reuses step 1's run).
# Run it after a change meant to move simulated numbers, and review the diff; the suite fails until then.
# Usage: tools/scripts/regen-golden.sh [BUILD_DIR]   (default: build, relative to the current folder)
set -euo pipefail

here=$(pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$here/$build" ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "regen-golden: $build: not a configured CMake build folder" >&2
  exit 2
fi
cmake --build "$build" --target fleetwatt fleetwatt_golden_stats -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fw="$build/tools/fleetwatt"
stats="$build/tests/golden/fleetwatt_golden_stats"
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. One run per shipped scenario; its printed summary (less the temporary file's name) is kept for step 2.
for scenario in workloads/scenarios/*.toml; do
  name=$(basename "$scenario" .toml)
  if grep -q 'shared/data' "$scenario" && [ ! -d ../shared/data ]; then
    echo "regen-golden: $scenario reads ../shared/data, which is absent: tests/golden/$name.json kept" >&2
    continue
  fi
  "$fw" run "$scenario" -o "$tmp/$name.h5" >"$tmp/$name.out"
  grep -v '^  result file ' "$tmp/$name.out" >"$tmp/$name.txt"
  "$stats" "$tmp/$name.h5" "$tmp/$name.out" >"$tmp/$name.json"
  mv "$tmp/$name.json" "tests/golden/$name.json"
  rm -f "$tmp/$name.h5"
  echo "regen-golden: tests/golden/$name.json"
done
# A golden file whose scenario is gone would only mislead.
for golden in tests/golden/*.json; do
  [ -e "$golden" ] || continue
  if [ ! -f "workloads/scenarios/$(basename "$golden" .json).toml" ]; then
    rm -f "$golden"
    echo "regen-golden: removed $golden (no such scenario)"
  fi
done

# 2. The README's printed blocks.
printed() {  # the output of one marker's command, without the result file's temporary name
  local cmd=$1
  if [[ $cmd =~ ^fleetwatt\ run\ workloads/scenarios/([A-Za-z0-9_-]+)\.toml$ ]] &&
    [ -f "$tmp/${BASH_REMATCH[1]}.txt" ]; then
    cat "$tmp/${BASH_REMATCH[1]}.txt"
    return
  fi
  # shellcheck disable=SC2086  # the command was checked to be plain words
  set -- ${cmd#fleetwatt }
  if [ "$1" = run ]; then
    "$fw" "$@" -o "$tmp/readme.h5" | grep -v '^  result file '
    rm -f "$tmp/readme.h5"
  else
    "$fw" "$@"
  fi
}
readme="$tmp/README.md"
: >"$readme"
in_block=0
keep=0
line_no=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  if [ "$in_block" = 1 ]; then
    if [ "$line" = "<!-- golden: end -->" ]; then
      in_block=0
      printf '%s\n' "$line" >>"$readme"
    elif [ "$keep" = 1 ]; then
      printf '%s\n' "$line" >>"$readme"
    fi
    continue
  fi
  printf '%s\n' "$line" >>"$readme"
  case $line in
  "<!-- golden: end -->")
    echo "regen-golden: README.md:$line_no: an end marker without a beginning" >&2
    exit 2
    ;;
  "<!-- golden: "*" -->")
    cmd=${line#<!-- golden: }
    cmd=${cmd% -->}
    if [[ ! $cmd =~ ^fleetwatt\ (run|compare)\ workloads/scenarios/[A-Za-z0-9_-]+\.toml(\ [A-Za-z0-9_,=.-]+)*$ ]]; then
      echo "regen-golden: README.md:$line_no: '$cmd' is not 'fleetwatt run|compare workloads/scenarios/NAME.toml ...'" >&2
      exit 2
    fi
    in_block=1
    keep=0
    scenario=${cmd#fleetwatt * }
    scenario=${scenario%% *}
    if grep -q 'shared/data' "$scenario" && [ ! -d ../shared/data ]; then
      keep=1  # as for its golden file: the block stays as it was
      echo "regen-golden: README.md:$line_no: kept ($scenario reads the absent ../shared/data)" >&2
      continue
    fi
    { printf '```\n'; printed "$cmd"; printf '```\n'; } >>"$readme"
    echo "regen-golden: README.md:$line_no: $cmd"
    ;;
  esac
done <README.md
if [ "$in_block" = 1 ]; then
  echo "regen-golden: README.md: a golden block without its '<!-- golden: end -->'" >&2
  exit 2
fi
mv "$readme" README.md
