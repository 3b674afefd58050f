#!/usr/bin/env bash
# Chart detection on real photographs, Eyedropper beside OpenCV's mcc (Tests/Calibration/real-charts.py):
# the photographs and their hand-checked patch centres are in charts-real (images/, truth/) in the
# shared folder beside the checkout, which is not part of the repository: when it is absent this
# says so loudly and runs nothing. Fails on any photograph read wrong, or on fewer right than mcc.
# Builds nothing: give the binary as $EYEDROPPER (default .build/release/eyedropper). Shares the
# venv of calibration-tests.sh. Leaves the frames, report.md and results.json in .build/real-charts.
set -euo pipefail
cd "$(dirname "$0")/../.."
charts="${EYEDROPPER_CHARTS_REAL:-$(git rev-parse --show-toplevel)/../shared/charts-real}"
if [ ! -d "$charts/truth" ]; then
  echo "!!! REAL-PHOTOGRAPH CHART TEST SKIPPED: no $charts/truth (the shared charts-real folder beside the checkout): eyedropper chart and mcc were NOT run on real photographs" >&2
  exit 0
fi
Scripts/install-deps python3-venv
eyedropper="${EYEDROPPER:-.build/release/eyedropper}"
[ -x "$eyedropper" ] || { echo "no eyedropper at $eyedropper: build it (swift build -c release) or set EYEDROPPER" >&2; exit 1; }
venv=.build/calibration-venv
Tests/python-venv.sh "$venv" Tests/Calibration/requirements.txt
PYTHONWARNINGS=ignore exec "$venv/bin/python" -B Tests/Calibration/real-charts.py --eyedropper "$eyedropper" --charts "$charts" "$@"
