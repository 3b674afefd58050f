#!/usr/bin/env bash
# Calibrated colour against a simulated camera and OpenCV's ccm module: renders a
# ColorChecker through a spectral camera model, runs `eyedropper calibrate` on one file and
# `eyedropper sample --profile` on another, and checks the mean CIEDE2000 (<= 1.0, and no worse
# than OpenCV's best configuration fitted to the same patch means). Builds nothing: give the
# binary as $EYEDROPPER (default .build/release/eyedropper). The Python packages live in a venv
# of their own, .build/calibration-venv, made on the first run and reused. Leaves the files, the
# profile and report.md in .build/calibration. Arguments go to simulated-camera.py: a run that
# must fail is `--camera sigma --out .build/calibration-sigma`, then
# `--check-profile .build/calibration-sigma/profile.json` (another camera's profile).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Calibration/environment.sh
exec "$python" -B Tests/Calibration/simulated-camera.py --eyedropper "$eyedropper" "$@"
