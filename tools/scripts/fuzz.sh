#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan) and runs each for SECONDS, as many at a
# time as FUZZ_PARALLEL (default: the hardware threads), printing the executions and findings per target.
# Exits 1 when any target found something (a crash, an uncaught exception, a hang over 30 s, a leak, a
# sanitizer report, memory over 2 GB): the input is kept in BUILD/findings/TARGET/ (reproduce:
# BUILD/fuzz/fuzz_TARGET FILE).
#
# Usage: tools/scripts/fuzz.sh SECONDS [TARGET...]     (targets: the names of fuzz/*.cpp; default: all)
# Environment: FUZZ_BUILD_DIR (default build-fuzz; .ci/run points it at its sanitizer build, which has the
# targets too), FUZZ_JOBS (build parallelism, default nproc), FUZZ_RUNS (stop a target after this many
# executions, SECONDS being then its limit: a campaign of 10^6 per target is FUZZ_RUNS=1000000).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" = 0 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  [ "${1:-}" = --help ] || [ "${1:-}" = -h ] && exit 0
  exit 2
fi
seconds=$1
shift
build=${FUZZ_BUILD_DIR:-build-fuzz}
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in fuzz/*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
for t in "${targets[@]}"; do
  [ -f "fuzz/$t.cpp" ] || { echo "fuzz.sh: no fuzz target $t (fuzz/$t.cpp)" >&2; exit 2; }
done

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 \
    -DFLEETWATT_FUZZ=ON -DFLEETWATT_BUILD_TESTS=OFF -DFLEETWATT_BUILD_TOOLS=OFF "${launcher[@]}" >&2
fi
cmake --build "$build" -j"${FUZZ_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}" >&2
/usr/bin/python3 fuzz/collect_corpus.py "$build/seeds" "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# One target: runs it and writes its result line to BUILD/findings/TARGET.result (exit 1: a finding).
run_target() {
  local t=$1 corpus="$build/corpus/$1" findings="$build/findings/$1" log="$build/findings/$1.log"
  mkdir -p "$corpus" "$findings"
  local before rc execs rate found status=none
  before=$(find "$findings" -type f | wc -l)
  # The grown corpus first (libFuzzer adds new inputs to it), then the collected seeds. The timeout is
  # wall time: room for a generated scenario's 7.5 s of CPU (generated_run.hpp) on a loaded machine.
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=30 \
    -rss_limit_mb=2048 -print_final_stats=1 -dict="fuzz/dict/$t.dict" -artifact_prefix="$findings/" \
    "$corpus" "$build/seeds/$t" >"$log" 2>&1 && rc=0 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(($(find "$findings" -type f | wc -l) - before))
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then status="exit $rc, $found new in $findings/ (log: $log)"; fi
  printf '%-22s %12s %10s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$status" >"$build/findings/$t.result"
  [ "$status" = none ]
}

# FUZZ_PARALLEL targets at a time (default: one per hardware thread); results printed in target order.
lanes=${FUZZ_PARALLEL:-$(nproc)}
mkdir -p "$build/findings"
running=0
for t in "${targets[@]}"; do
  rm -f "$build/findings/$t.result"
  if [ "$running" -ge "$lanes" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true
printf '%-22s %12s %10s  %s\n' target executions exec/s findings
failed=0
for t in "${targets[@]}"; do
  if [ -f "$build/findings/$t.result" ]; then
    cat "$build/findings/$t.result"
    grep -q '  none$' "$build/findings/$t.result" || failed=1
  else
    printf '%-22s %12s %10s  %s\n' "$t" ? ? "did not finish"
    failed=1
  fi
done
exit $failed
