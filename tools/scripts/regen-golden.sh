#!/usr/bin/env bash
# Regenerates every figure of a scenario that the repository keeps, from the build's own fleetwatt:
#  1. tests/golden/<scenario>.json for each examples/scenarios/*.toml (the shipped scenarios, which run from a
#     clone alone) and each examples/public-data/*.toml (which read ../shared/data): its /summary values,
#     series statistics and printed counts (fleetwatt_golden_stats, the code the golden test compares with);
#  2. the printed blocks of README.md and docs/*.md: the lines between "<!-- golden: COMMAND -->" and
#     "<!-- golden: end -->", where COMMAND is `fleetwatt run|compare FOLDER/NAME.toml [options]` with FOLDER
#     examples/scenarios or examples/public-data (run from the repository root; a plain `run` block reuses
#     step 1's run), or `fleetwatt export FOLDER/NAME.toml [export options]`: the scenario is run to NAME.h5
#     and exported in an empty folder; the block is the first 6 lines of what the export prints, then, for
#     each file it writes (by name), "==> FILE <==" and its first 6 lines.
# Every marker is checked before anything runs or is written; a bad one names its file and line (exit 2).
# A scenario that reads ../shared/data keeps its golden file and its blocks as they were when that folder is
# absent. Run it after a change meant to move simulated numbers, and review the diff; the suite fails until then.
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
cd "$root"
scenario_dirs=(examples/scenarios examples/public-data)
folders='(examples/scenarios|examples/public-data)'
marker_re="^fleetwatt (run|compare|export) $folders/[A-Za-z0-9_-]+\\.toml( [A-Za-z0-9_,=.-]+)*\$"
plain_run_re="^fleetwatt run $folders/([A-Za-z0-9_-]+)\\.toml\$"
docs=(README.md)
for f in docs/*.md; do [ -f "$f" ] && docs+=("$f"); done

reads_absent_shared_data() {  # true when the scenario reads ../shared/data and that folder is not there
  grep -q 'shared/data' "$1" && [ ! -d ../shared/data ]
}

# 0. Every marker of every page, checked before anything runs: a malformed one stops here, nothing written.
for doc in "${docs[@]}"; do
  in_block=0
  line_no=0
  begin_no=0
  while IFS= read -r line || [ -n "$line" ]; do
    line_no=$((line_no + 1))
    case $line in
    "<!-- golden: end -->")
      if [ "$in_block" = 0 ]; then
        echo "regen-golden: $doc:$line_no: an end marker without a beginning" >&2
        exit 2
      fi
      in_block=0
      ;;
    "<!-- golden: "*" -->")
      if [ "$in_block" = 1 ]; then
        echo "regen-golden: $doc:$begin_no: a golden block without its '<!-- golden: end -->'" >&2
        exit 2
      fi
      cmd=${line#<!-- golden: }
      cmd=${cmd% -->}
      if [[ ! $cmd =~ $marker_re ]]; then
        echo "regen-golden: $doc:$line_no: '$cmd' is not 'fleetwatt run|compare|export" \
          "examples/scenarios/NAME.toml|examples/public-data/NAME.toml ...'" >&2
        exit 2
      fi
      scenario=${cmd#fleetwatt * }
      scenario=${scenario%% *}
      if [ ! -f "$scenario" ]; then
        echo "regen-golden: $doc:$line_no: $scenario: no such scenario" >&2
        exit 2
      fi
      in_block=1
      begin_no=$line_no
      ;;
    esac
  done <"$doc"
  if [ "$in_block" = 1 ]; then
    echo "regen-golden: $doc:$begin_no: a golden block without its '<!-- golden: end -->'" >&2
    exit 2
  fi
done

# Golden files are named by the scenario's name alone, so a name may be used in one folder only.
declare -A seen=()
for dir in "${scenario_dirs[@]}"; do
  for scenario in "$dir"/*.toml; do
    [ -e "$scenario" ] || continue
    name=$(basename "$scenario" .toml)
    if [ -n "${seen[$name]:-}" ]; then
      echo "regen-golden: $scenario and ${seen[$name]}: two scenarios named $name (tests/golden/$name.json)" >&2
      exit 2
    fi
    seen[$name]=$scenario
  done
done

cmake --build "$build" --target fleetwatt fleetwatt_golden_stats -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fw="$build/tools/fleetwatt"
stats="$build/tests/golden/fleetwatt_golden_stats"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. One run per scenario of both folders; its printed summary (less the temporary file's name) is kept for
#    step 2.
for dir in "${scenario_dirs[@]}"; do
  for scenario in "$dir"/*.toml; do
    [ -e "$scenario" ] || continue
    name=$(basename "$scenario" .toml)
    if reads_absent_shared_data "$scenario"; then
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
done
# A golden file whose scenario is gone from both folders would only mislead.
for golden in tests/golden/*.json; do
  [ -e "$golden" ] || continue
  if [ -z "${seen[$(basename "$golden" .json)]:-}" ]; then
    rm -f "$golden"
    echo "regen-golden: removed $golden (no such scenario in ${scenario_dirs[*]})"
  fi
done

# 2. The printed blocks of README.md and docs/*.md: each page is written to the temporary folder first, and
#    pages are written back (those that changed) only when every page is done.
printed() {  # the output of one marker's command, without the result file's temporary name
  local cmd=$1
  if [[ $cmd =~ $plain_run_re ]] && [ -f "$tmp/${BASH_REMATCH[2]}.txt" ]; then
    cat "$tmp/${BASH_REMATCH[2]}.txt"
    return
  fi
  # shellcheck disable=SC2086  # the command was checked to be plain words
  set -- ${cmd#fleetwatt }
  if [ "$1" = run ]; then
    "$fw" "$@" -o "$tmp/block.h5" | grep -v '^  result file '
    rm -f "$tmp/block.h5"
  elif [ "$1" = export ]; then
    local name
    name=$(basename "$2" .toml)
    rm -rf "$tmp/export" && mkdir "$tmp/export"
    "$fw" run -q "$2" -o "$tmp/export/$name.h5"
    shift 2
    (cd "$tmp/export" && "$fw" export "$name.h5" "$@" >"$tmp/export.out" 2>/dev/null)
    rm -f "$tmp/export/$name.h5"
    head -n 6 "$tmp/export.out"
    for f in $(cd "$tmp/export" && LC_ALL=C ls); do
      printf '==> %s <==\n' "$f"
      head -n 6 "$tmp/export/$f"
    done
  else
    "$fw" "$@"
  fi
}
mkdir "$tmp/pages"
for doc in "${docs[@]}"; do
  out="$tmp/pages/$(printf '%s' "$doc" | tr / _)"
  : >"$out"
  in_block=0
  keep=0
  line_no=0
  while IFS= read -r line || [ -n "$line" ]; do
    line_no=$((line_no + 1))
    if [ "$in_block" = 1 ]; then
      if [ "$line" = "<!-- golden: end -->" ]; then
        in_block=0
        printf '%s\n' "$line" >>"$out"
      elif [ "$keep" = 1 ]; then
        printf '%s\n' "$line" >>"$out"
      fi
      continue
    fi
    printf '%s\n' "$line" >>"$out"
    case $line in
    "<!-- golden: "*" -->")
      [ "$line" = "<!-- golden: end -->" ] && continue  # checked in step 0: never here
      cmd=${line#<!-- golden: }
      cmd=${cmd% -->}
      in_block=1
      keep=0
      scenario=${cmd#fleetwatt * }
      scenario=${scenario%% *}
      if reads_absent_shared_data "$scenario"; then
        keep=1  # as for its golden file: the block stays as it was
        echo "regen-golden: $doc:$line_no: kept ($scenario reads the absent ../shared/data)" >&2
        continue
      fi
      { printf '```\n'; printed "$cmd"; printf '```\n'; } >>"$out"
      echo "regen-golden: $doc:$line_no: $cmd"
      ;;
    esac
  done <"$doc"
done
for doc in "${docs[@]}"; do
  out="$tmp/pages/$(printf '%s' "$doc" | tr / _)"
  cmp -s "$out" "$doc" || cat "$out" >"$doc"
done
