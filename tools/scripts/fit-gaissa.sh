#!/bin/sh
# Reproduces the fit figures of docs/calibration.md on the public GAISSA SEAA 2023 data
# (../shared/data/gaissa-seaa2023):
#  1. calibrate: segments each of the 25 RTX 3070 nvidia-smi logs and joins it with its run's metadata from
#     dl-training-energy-consumption-dataset.csv (the k-th log of an architecture, in time order, is run k)
#     into records (peak_W, peak_s, valley_W, valley_s per run);
#  2. fit: symbolic regression vs. the baselines on those records and on the 219 per-run records.
# Usage: tools/scripts/fit-gaissa.sh [OUTPUT_DIR]   (FW=path/to/fleetwatt, DATA=path/to/gaissa-seaa2023)
set -eu
FW=${FW:-build/tools/fleetwatt}
DATA=${DATA:-../shared/data/gaissa-seaa2023}
OUT=${1:-gaissa-fit}
mkdir -p "$OUT"
RECORDS="$OUT/rtx3070-records.csv"
TABLE="$DATA/dl-training-energy-consumption-dataset.csv"
rm -f "$RECORDS"
for dir in "$DATA"/rtx3070/*/; do
  arch=$(basename "$dir")
  run=0
  for trace in $(ls "$dir"gpu-power-*.csv | sort); do
    # GFLOPs (column 24) per image -> FLOPs, trained epochs (29), training size (21), batch size (23).
    meta=$(awk -F, -v a="$arch" -v r="$run" \
      'NR > 1 && $2 == a && $3 == r && $5 ~ /3070/ { printf "%.0f %s %s %s\n", $24 * 1e9, $29, $21, $23; exit }' "$TABLE")
    # shellcheck disable=SC2086
    set -- $meta
    "$FW" calibrate "$trace" --records "$RECORDS" --model "$arch" --flops "$1" --epochs "$2" --data-size "$3" \
      --batch-size "$4" --gpu-type "NVIDIA GeForce RTX 3070" > /dev/null
    run=$((run + 1))
  done
done
echo "records: $RECORDS ($(($(wc -l < "$RECORDS") - 1)) runs)"

# Phase targets from the calibrated logs (25 runs: 19/3/3 splits).
"$FW" fit "$RECORDS" --target peak_W,peak_s,valley_W,valley_s --group model --csv "$OUT/phases" \
  -o "$OUT/rtx3070-sr.toml" | tee "$OUT/phases.txt"
# Per-run targets from the 219 published records (RTX 3070 and GTX 750 Ti; the power limit tells them apart).
"$FW" fit "$TABLE" --target "average power draw (W),training duration (h),energy (MJ)" \
  --features "GFLOPs,max power limit (W),trained epochs" --group architecture --csv "$OUT/runs" \
  | tee "$OUT/runs.txt"
