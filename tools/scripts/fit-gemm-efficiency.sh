#!/usr/bin/env bash
# Refits the GEMM-size efficiency curves on NeuSight's per-operator labels in ../shared/data and writes
# models/data/gemm_efficiency.toml, compiled into the library (models/fit/gemm_efficiency.hpp). Run from the
# repository root after a change to the GEMM reader or the fit; then rebuild. The fit runs inside the test
# that checks the built-in curves against it. Usage: tools/scripts/fit-gemm-efficiency.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
FLEETWATT_GEMM_FIT_OUT="$PWD/models/data/gemm_efficiency.toml" \
  "$build/tests/models/test_models" "The built-in GEMM curves are the fit of NeuSight's kernels*" || true
echo "wrote models/data/gemm_efficiency.toml; rebuild to compile it in" >&2
