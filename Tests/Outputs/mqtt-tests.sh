#!/usr/bin/env bash
# eyedropper sample and serve publishing to a real Mosquitto broker (Debian's), started on free
# loopback ports by Tests/Outputs/mqtt_check.py, which says what it checks. Needs a release build
# (Scripts/test makes one).
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3 python3-venv openssl mosquitto mosquitto-clients
work=.build/mqtt
rm -rf "$work"
mkdir -p "$work"
venv=.build/venv-outputs
Tests/python-venv.sh "$venv" Tests/Outputs/requirements.txt
eyedropper=.build/release/eyedropper

# A calibrated chart: the still chart the browser tests calibrate, its profile and a target.
eval "$(python3 -B Tests/Browser/calibrated_page.py chart "$work")"
"$eyedropper" calibrate --source "$work/chart.y4m" --matrix bt601 --frames 2 --reference "$work/reference.json" \
  --out "$work/profile.json" "${corners[@]}" >"$work/calibrate.txt" 2>&1 || { cat "$work/calibrate.txt" >&2; exit 1; }
"$venv/bin/python" -B Tests/Outputs/mqtt_check.py "$eyedropper" "$work" "$work/chart.y4m" "$work/profile.json" "$target" \
  "${points[0]}" "${points[1]}"
