#!/usr/bin/env bash
# Calibration through a real V4L2 device: rendered chart frames (loopback.py render) fed into
# v4l2loopback in the VM (YUYV and MJPEG), `eyedropper calibrate` with no corners on each, and
# `sample --profile` on other frames of the same device (guest-loopback-calibrate.sh); then the
# found patches and calibrated colours are checked against the rendered truth (loopback.py
# check: mean CIEDE2000 <= 1.0 for YUYV, 1.25 for MJPEG). Builds what Tests/VM/vivid-tests.sh builds; leaves the frames
# and the guest's output in .build/loopback-calibration.
#
# usage: Tests/Calibration/loopback-tests.sh [GUEST_SCRIPT...]
# Guest scripts given run in the same VM first (Scripts/test gives the vivid ones: one boot).
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3-venv
venv=.build/calibration-venv
Tests/python-venv.sh "$venv" Tests/Calibration/requirements.txt
out=.build/loopback-calibration
rm -rf "$out"
"$venv/bin/python" -B Tests/Calibration/loopback.py render "$out"
VM_LOOPBACK=1 VM_DATA="$out" VM_OUT="$out/out" VM_TIMEOUT="${VM_TIMEOUT:-900}" GUEST_SCRIPT_TIMEOUT="${GUEST_SCRIPT_TIMEOUT:-420}" \
  Tests/VM/vivid-tests.sh "$@" Tests/Calibration/guest-loopback-calibrate.sh
"$venv/bin/python" -B Tests/Calibration/loopback.py check "$out"
