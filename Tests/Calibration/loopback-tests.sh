#!/usr/bin/env bash
# Calibration through a real V4L2 device: rendered chart frames (loopback.py render) fed into
# v4l2loopback in the VM (YUYV and MJPEG), `eyedropper calibrate` with no corners on each, and
# `sample --profile` on other frames of the same device (guest-loopback-calibrate.sh); the same
# two commands on the host for the scenes whose frames need no device to show what they test
# (loopback.py's HOST_RUNS, from the same frames as a .y4m); then the found patches and calibrated
# colours are checked against the rendered truth (loopback.py check: mean CIEDE2000 <= 1.0 for
# YUYV, 1.25 for MJPEG). Builds what Tests/VM/vivid-tests.sh builds; leaves the frames and the
# guest's output in .build/loopback-calibration.
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
# The VM's failures are said with the others', below.
vm=0
VM_LOOPBACK=1 VM_DATA="$out" VM_OUT="$out/out" Tests/VM/vivid-tests.sh "$@" Tests/Calibration/guest-loopback-calibrate.sh || vm=$?
# The host's scenes, with the guest's options: the device's frames are BT.601 limited.
mkdir -p "$out/out"
"$venv/bin/python" -B Tests/Calibration/loopback.py y4m "$out"
eyedropper=.build/release/eyedropper
for scene in plain uneven; do
  check=$(awk -v s=$scene '$1 == s { print $2 }' "$out/checks.txt")
  "$eyedropper" calibrate --source "$out/y4m/$scene.y4m" --matrix bt601 --range limited --frames 10 \
    --out "$out/out/profile-$scene-YUYV.json" --format json >"$out/out/calibrate-$scene-YUYV.json" 2>"$out/out/calibrate-$scene-YUYV.err" \
    || echo "calibrate on the host's $scene.y4m failed: $(tail -n 3 "$out/out/calibrate-$scene-YUYV.err")" >&2
  # shellcheck disable=SC2046
  "$eyedropper" sample --source "$out/y4m/$check.y4m" --matrix bt601 --range limited --frames 10 --average 10 --radius 20 \
    --profile "$out/out/profile-$scene-YUYV.json" --format json $(cat "$out/points-$check.txt") \
    >"$out/out/check-$scene-YUYV.json" 2>"$out/out/check-$scene-YUYV.err" \
    || echo "sample --profile on the host's $check.y4m failed: $(tail -n 3 "$out/out/check-$scene-YUYV.err")" >&2
done
"$venv/bin/python" -B Tests/Calibration/loopback.py check "$out"
[ "$vm" = 0 ] || { echo "the VM's checks failed (exit $vm): see above" >&2; exit "$vm"; }
