#!/usr/bin/env bash
# Calibration through a real V4L2 device: rendered chart frames (loopback.py render) fed into
# v4l2loopback in the VM (YUYV and MJPEG) and recorded from it as calibrate reads a device
# (guest-loopback-calibrate.sh); on the host, `eyedropper calibrate` with no corners on each
# recording and `sample --profile` on the recording of another scene; the same two commands on
# the scenes whose frames need no device to show what they test (loopback.py's HOST_RUNS, from
# the same frames as a .y4m); then the found patches and calibrated colours are checked against
# the rendered truth (loopback.py check: mean CIEDE2000 <= 1.0 for YUYV, 1.25 for MJPEG). Builds
# what Tests/VM/vivid-tests.sh builds; leaves the frames, the recordings and the output in
# .build/loopback-calibration.
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
mkdir -p "$out/out"
"$venv/bin/python" -B Tests/Calibration/loopback.py y4m "$out"
eyedropper=.build/release/eyedropper
# calibrate_and_check SCENE CHECK FORMAT CALIBRATION.y4m CHECK.y4m [OPTION...]: a profile from
# the first recording with no corners, then the second sampled with it at CHECK's patches.
calibrate_and_check() {
  local scene=$1 check=$2 format=$3 source=$4 checked=$5
  shift 5
  "$eyedropper" calibrate --source "$source" "$@" --frames 10 \
    --out "$out/out/profile-$scene-$format.json" --format json >"$out/out/calibrate-$scene-$format.json" 2>"$out/out/calibrate-$scene-$format.err" \
    || echo "calibrate on $source failed: $(tail -n 3 "$out/out/calibrate-$scene-$format.err")" >&2
  # shellcheck disable=SC2046
  "$eyedropper" sample --source "$checked" "$@" --frames 10 --average 10 --radius 20 \
    --profile "$out/out/profile-$scene-$format.json" --format json $(cat "$out/points-$check.txt") \
    >"$out/out/check-$scene-$format.json" 2>"$out/out/check-$scene-$format.err" \
    || echo "sample --profile on $checked failed: $(tail -n 3 "$out/out/check-$scene-$format.err")" >&2
}
# check_of SCENE: the scene whose patches check SCENE's profile (loopback.py's checks.txt).
check_of() { awk -v s="$1" '$1 == s { print $2 }' "$out/checks.txt"; }
# What came through the device: its colorimetry as the device reported it, kept in the recording.
check=$(check_of small)
for format in YUYV MJPG; do
  calibrate_and_check small "$check" $format "$out/out/device-small-$format.y4m" "$out/out/device-$check-$format.y4m"
done
# The scenes the host alone shows, as the device gives them: BT.601 limited (their .y4m has no tags).
for scene in plain uneven; do
  check=$(check_of $scene)
  calibrate_and_check $scene "$check" YUYV "$out/y4m/$scene.y4m" "$out/y4m/$check.y4m" --matrix bt601 --range limited
done
"$venv/bin/python" -B Tests/Calibration/loopback.py check "$out"
[ "$vm" = 0 ] || { echo "the VM's checks failed (exit $vm): see above" >&2; exit "$vm"; }
