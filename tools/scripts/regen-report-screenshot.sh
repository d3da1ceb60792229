#!/usr/bin/env bash
# Regenerates docs/report-day-fleet.png, the README's picture of `fleetwatt report`: the default scenario's
# day is run, reported and rendered by headless Chromium; the screenshot is cut to its first screens and
# reduced to 128 colours so that it stays small (< 300 KB). Never edit the PNG by hand.
# Usage: tools/scripts/regen-report-screenshot.sh [BUILD_DIR]   (default: build, relative to the current folder)
set -euo pipefail

here=$(pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$here/$build" ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "regen-report-screenshot: $build: not a configured CMake build folder" >&2
  exit 2
fi
python=$(sed -n 's/^FLEETWATT_REPORT_PYTHON_FOUND:INTERNAL=//p' "$build/CMakeCache.txt")
if [ -z "$python" ]; then
  echo "regen-report-screenshot: no Python with matplotlib found at configure time (run tools/install-deps.sh, re-run cmake)" >&2
  exit 1
fi
cmake --build "$build" --target fleetwatt -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fw="$build/tools/fleetwatt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
"$fw" run -q examples/scenarios/day-fleet.toml -o "$tmp/day-fleet.h5"
"$fw" report "$tmp/day-fleet.h5" -o "$tmp/day-fleet.html" >/dev/null
/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$tmp/chromium" --screenshot="$tmp/shot.png" --window-size=1280,2700 \
  "file://$tmp/day-fleet.html" 2>/dev/null
mkdir -p docs
"$python" - "$tmp/shot.png" docs/report-day-fleet.png <<'PY'
import sys
from PIL import Image
shot = Image.open(sys.argv[1]).convert("RGB")
shot.resize((shot.width * 3 // 4, shot.height * 3 // 4), Image.LANCZOS).quantize(128).save(sys.argv[2], optimize=True)
PY
echo "regen-report-screenshot: docs/report-day-fleet.png ($(stat -c %s docs/report-day-fleet.png) bytes)"
