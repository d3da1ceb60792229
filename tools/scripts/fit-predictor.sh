#!/usr/bin/env bash
# Refits the default predictor's constants and band on ../shared/data (leave-one-GPU-out for the band) and
# writes models/data/predictor_fit.toml, compiled into the library. Run from the repository root after a
# change to the roofline, the power model, the zoo or the measurement readers; then rebuild and rerun
# tools/scripts/regen-golden.sh. Usage: tools/scripts/fit-predictor.sh [build-dir] [data-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
data=${2:-../shared/data}
"$build/tools/fleetwatt" validate "$data" --fit --leave-one-gpu-out -o models/data/predictor_fit.toml
