#!/usr/bin/env bash
# OSC output against two peers that share no code with eyedropper's encoder:
# python-osc (PyPI, pinned in Tests/Outputs/requirements.txt) and liblo's oscdump (Debian's
# liblo-tools). Tests/Outputs/osc_check.py receives what `eyedropper sample --osc` sends and checks
# every frame's bundle against the JSON line printed for it: its time tag, and every address, type
# tag and value, for several frames and points, with --radius, with --average, with a profile
# (lab), with a white reference (/eyedropper/reference), and with 600 points (each frame split
# into two bundles); then the same for `serve`
# against its /api/v1/sample. oscdump must parse every bundle of a calibrated run and show the
# same addresses, type tags and values. Last, sending allocates nothing once warm, counted by
# Tests/Outputs/malloc_count.c preloaded into OSCSenderTests (this needs the release test build,
# Scripts/test's). Builds nothing: give the binary as $EYEDROPPER (default
# .build/release/eyedropper). The Python packages live in the venv the Outputs tests share, .build/venv-outputs;
# the files and logs go to .build/osc.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3-venv liblo-tools
eyedropper="${EYEDROPPER:-.build/release/eyedropper}"
[ -x "$eyedropper" ] || { echo "no eyedropper at $eyedropper: build it (swift build -c release) or set EYEDROPPER" >&2; exit 1; }
venv=.build/venv-outputs
Tests/python-venv.sh "$venv" Tests/Outputs/requirements.txt
out=.build/osc
rm -rf "$out"
mkdir -p "$out"
check() { "$venv/bin/python" -B Tests/Outputs/osc_check.py "$@"; }

# A camera profile, from the chart the browser tests calibrate: samples gain their L*a*b*.
eval "$(python3 -B Tests/Browser/calibrated_page.py chart "$out")"
"$eyedropper" calibrate --source "$out/chart.y4m" --matrix bt601 --frames 2 --reference "$out/reference.json" \
  --out "$out/profile.json" "${corners[@]}" >"$out/calibrate.txt" 2>&1 || { cat "$out/calibrate.txt" >&2; exit 1; }

# A bar's edge (with a radius, a mean between two bars), the grey ramp, the hue sweep, two corners.
points=(--at 0.125,0.3 --at 0.5,0.75 --at 0.3,0.9 --at 0,0 --at 1,1)
pattern=(--source testpattern --size 640x480)
check sample "$eyedropper" 20 1 "${pattern[@]}" --frames 20 "${points[@]}"
check sample "$eyedropper" 20 1 "${pattern[@]}" --frames 20 --radius 3 "${points[@]}"
check sample "$eyedropper" 6 1 "${pattern[@]}" --frames 24 --average 4 --radius 2 "${points[@]}"
check sample "$eyedropper" 10 1 "${pattern[@]}" --frames 10 --radius 2 --profile "$out/profile.json" "${points[@]}"
# 600 points with lab take 124 bytes each: 528 fit in a datagram, so each frame is two bundles.
# --average 3 spaces the frames out, so the receiver's socket buffer keeps up.
mapfile -t many < <(python3 -c "for i in range(600): print(f'--at={i % 30 / 29:.4f},{i // 30 / 19:.4f}')")
check sample "$eyedropper" 4 2 "${pattern[@]}" --frames 12 --average 3 --radius 1 --profile "$out/profile.json" "${many[@]}"
check serve "$eyedropper" 3 "${pattern[@]}" --radius 2 --profile "$out/profile.json" "${points[@]}"
# A white reference (the test pattern's white bar, its L*a*b* given): /eyedropper/reference first.
reference=(--white-reference 0.0625,0.25 --white-reference-lab 75,0,0)
check sample "$eyedropper" 10 1 "${pattern[@]}" --frames 10 --radius 2 --profile "$out/profile.json" "${reference[@]}" "${points[@]}"
check serve "$eyedropper" 3 "${pattern[@]}" --radius 2 --profile "$out/profile.json" "${reference[@]}" "${points[@]}"
# A palette: /eyedropper/<i>/name after each point, named or unknown (past --max-delta-e 3).
palette=(--palette Packaging/palettes/css-named-colors.json --max-delta-e 3)
check sample "$eyedropper" 10 1 "${pattern[@]}" --frames 10 --radius 2 "${palette[@]}" "${points[@]}"
check serve "$eyedropper" 3 "${pattern[@]}" --radius 2 --profile "$out/profile.json" "${palette[@]}" "${points[@]}"

# liblo: oscdump prints each message it parsed as `SECONDS.FRACTION ADDRESS TYPES VALUES`.
port=$(check free-port)
oscdump -L "$port" >"$out/oscdump.txt" 2>&1 &
dump=$!
trap 'kill $dump 2>/dev/null || true' EXIT
check wait-listening "$port"
"$eyedropper" sample "${pattern[@]}" --frames 20 --radius 2 --profile "$out/profile.json" "${points[@]}" \
  --format json --osc "127.0.0.1:$port" >"$out/oscdump.jsonl" 2>"$out/oscdump-sample.log"
check wait-dump "$out/oscdump.txt" "$out/oscdump.jsonl"
kill $dump
wait $dump || true
trap - EXIT
check oscdump "$out/oscdump.txt" "$out/oscdump.jsonl" 20

# Sending allocates nothing once warm: OSCSenderTests' check runs only with the counter preloaded.
cc -O2 -shared -fPIC -o "$out/malloc_count.so" Tests/Outputs/malloc_count.c
LD_PRELOAD="$PWD/$out/malloc_count.so" swift test -c release --disable-testable-imports --skip-build \
  --filter 'EyedropperOutputsTests.OSCSenderTests/sendingAllocatesNothingOnceWarm' >"$out/allocations.txt" 2>&1 || true
if grep -q 'sendingAllocatesNothingOnceWarm() passed' "$out/allocations.txt"; then
  echo "allocations: none in 10,000 sends, once warm: ok"
else
  cat "$out/allocations.txt" >&2
  echo "FAIL: sending allocated, or the allocation check did not run" >&2
  exit 1
fi
