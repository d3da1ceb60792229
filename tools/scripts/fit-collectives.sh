#!/usr/bin/env bash
# Refits the intra-node NCCL collective model on vidur's DGX timings in ../shared/data and writes
# models/data/collectives.toml, compiled into the library (models/fit/collective_fit.hpp). Run from the
# repository root after a change to the reader or the fit; then rebuild. The fit runs inside the test that
# checks the built-in fit against it. Usage: tools/scripts/fit-collectives.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
FLEETWATT_COLLECTIVES_FIT_OUT="$PWD/models/data/collectives.toml" \
  "$build/tests/models/test_models" "The built-in collective fit is the refit*" || true
echo "wrote models/data/collectives.toml; rebuild to compile it in" >&2
