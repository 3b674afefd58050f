#!/usr/bin/env bash
# Calibrated colour on cameras that are not ours (Tests/Calibration/cameras.py): measured spectral
# sensitivities with measured tone curves from ../shared/cameras beside the checkout, each camera
# calibrated by `eyedropper calibrate` on the chart and judged on measured reflectances off the
# chart and under other lights with a white tile, beside OpenCV's ccm and the ideal 3x3; prints
# the table and fails on a regression against the committed bounds. Skips, loudly, when the data
# is absent. Builds nothing: give the binary as $EYEDROPPER (default .build/release/eyedropper).
# Shares the venv of calibration-tests.sh. Leaves cameras.md and cameras.json in .build/cameras.
# Arguments go to cameras.py (--set quick|every-sensor|full, --sensor S, --curve C, --jobs N).
set -euo pipefail
cd "$(dirname "$0")/../.."
data="$(git rev-parse --show-toplevel)/../shared/cameras"
if [ ! -d "$data" ]; then
  echo "!!! SKIPPED: no measured cameras at $data: calibration on measured sensors and tone curves (Tests/Calibration/cameras.py) was NOT run" >&2
  exit 0
fi
source Tests/Calibration/environment.sh
PYTHONWARNINGS=ignore exec "$python" -B Tests/Calibration/cameras.py --eyedropper "$eyedropper" --data "$data" "$@"
