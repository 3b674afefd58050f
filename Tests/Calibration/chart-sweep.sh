#!/usr/bin/env bash
# Chart detection on rendered frames, Eyedropper beside OpenCV's mcc (Tests/Calibration/chart-sweep.py):
# at least as many frames with all 24 patches right, and none read turned or mirrored. Builds
# nothing: give the binary as $EYEDROPPER (default .build/release/eyedropper). Shares the venv of
# calibration-tests.sh. Leaves the frames, report.md and results.json in .build/chart-sweep.
# Arguments go to chart-sweep.py (--frames N, --seed S, --out DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3-venv
eyedropper="${EYEDROPPER:-.build/release/eyedropper}"
[ -x "$eyedropper" ] || { echo "no eyedropper at $eyedropper: build it (swift build -c release) or set EYEDROPPER" >&2; exit 1; }
venv=.build/calibration-venv
Tests/python-venv.sh "$venv" Tests/Calibration/requirements.txt
PYTHONWARNINGS=ignore exec "$venv/bin/python" -B Tests/Calibration/chart-sweep.py --eyedropper "$eyedropper" "$@"
