#!/usr/bin/env bash
# Refits the tensor-core GEMM time model on vidur's and XLA's kernels and the MAMF table in ../shared/data
# and writes models/data/tensor_gemm.toml, compiled into the library (models/hardware/tensor_gemm.hpp). Run from the
# repository root after a change to the readers or the fit; then rebuild. The fit runs inside the test that
# checks the built-in fit against it. Usage: tools/scripts/fit-tensor-gemm.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
FLEETWATT_TENSOR_GEMM_FIT_OUT="$PWD/models/data/tensor_gemm.toml" \
  "$build/tests/models/test_models" "The built-in tensor-core GEMM fit is the refit*" || true
echo "wrote models/data/tensor_gemm.toml; rebuild to compile it in" >&2
