#!/usr/bin/env bash
# Refits the 3D-parallel step model's calibration (models/training/step_calibration.hpp) on the published pre-training
# step times in ../shared/data (NeMo, Megatron-Bridge) and writes models/data/step_calibration.toml, compiled
# into the library. Run from the repository root after a change to the step model, the GEMM or collective
# fits, or the published-step readers; then rebuild. A test checks the built-in file against a refit.
# Usage: tools/scripts/fit-step-calibration.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
"$build/tools/fleetwatt" validate ../shared/data --steps --fit -o models/data/step_calibration.toml
echo "wrote models/data/step_calibration.toml; rebuild to compile it in" >&2
