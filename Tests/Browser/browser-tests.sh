#!/usr/bin/env bash
# The page of `eyedropper serve` in a real browser: headless Chromium loads it, clicks two bars of
# the live test pattern and checks the colour and statistics shown, the markers at the --at points
# and at the click, and the plot receiving samples (Tests/Browser/click_sample.py); then holds the
# Record button and reads the file it saves back with ffprobe and eyedropper
# (Tests/Browser/record_page.py). Then the page of a server with a token (--token-file). Then a
# chart is drawn, calibrated and served with --profile and --target, and the page's calibrated
# colour, ΔE and PASS / FAIL are checked against the API's; on that server, the page's calibrate
# mode: Calibrate's per-patch ΔE against calibrate's, and the profile applied live against sample
# --profile (Tests/Browser/calibrated_page.py); then the chart partly covered, found and calibrated
# on the page with the patches it sees, as calibrate does. Last, the light's drift
# (Tests/Browser/drift_page.py): the drift run's files (Tests/Calibration/drift.py renders them)
# served in a loop with --white-reference: the Light drift card's line against /api/v1/sample of the
# same frame, its canvas drawn, the card hidden without a reference, with --palette the names shown
# against the API's; and the shipped CSS palette against Chromium's own colour names. Needs a
# release build (Scripts/test makes one). Leaves the screenshots in .build/browser/page.png,
# record.png, calibrated.png, calibrated-calibrate.png, covered-chart.png, covered.png and
# drift-page.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps chromium python3 ffmpeg
mkdir -p .build/browser
points=(0.0625,0.25 0.9375,0.75)
source Tests/Serve/start-serve.sh
start_serve .build/release/eyedropper .build/browser/serve.log --source testpattern "${points[@]/#/--at=}"
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/click_sample.py "http://127.0.0.1:$port/" .build/browser/page.png "${points[@]}"
# The Record button held and released: the file the page saves, read back (Tests/Browser/record_page.py).
python3 Tests/Browser/record_page.py "http://127.0.0.1:$port/" .build/browser/record.png "${points[@]}"
kill -TERM $server
wait $server
trap - EXIT

# With a token (--token-file): the page opened as /#token=TOKEN does all of the above with the
# token on every request; a tab without it shows how to open it (.build/browser/page-token.png and
# page-token-refused.png).
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$token" >.build/browser/token
start_serve .build/release/eyedropper .build/browser/serve-token.log --source testpattern --token-file .build/browser/token "${points[@]/#/--at=}"
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/click_sample.py --token "$token" "http://127.0.0.1:$port/" .build/browser/page-token.png "${points[@]}"
kill -TERM $server
wait $server
trap - EXIT

# With a camera profile and a target: the chart's corners, two patch centres and the target come
# from the script that draws the chart.
eval "$(python3 Tests/Browser/calibrated_page.py chart .build/browser)"
# linear-3x3 through the neutrals, so that the page's own fit (the model and curve of least
# leave-one-out error: one shape through every patch, on this chart) reads otherwise.
.build/release/eyedropper calibrate --source .build/browser/chart.y4m --matrix bt601 --frames 2 --model linear-3x3 --curve neutrals \
  --reference .build/browser/reference.json --out .build/browser/profile.json "${corners[@]}" \
  >.build/browser/calibrate.txt 2>&1 || { cat .build/browser/calibrate.txt >&2; exit 1; }
# What the page's Calibrate must show: calibrate with no corners on the same frames.
.build/release/eyedropper calibrate --source .build/browser/chart.y4m --matrix bt601 --frames 2 \
  --reference .build/browser/reference.json --out .build/browser/profile-found.json --format json \
  >.build/browser/calibrate-found.json 2>.build/browser/calibrate-found.log || { cat .build/browser/calibrate-found.log >&2; exit 1; }
rm -rf .build/browser/profiles && mkdir -p .build/browser/profiles
start_serve .build/release/eyedropper .build/browser/serve-calibrated.log --source .build/browser/chart.y4m --matrix bt601 \
  --profile .build/browser/profile.json --target "$target" --radius 4 "${points[@]/#/--at=}" \
  --profile-dir .build/browser/profiles --reference .build/browser/reference.json
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/calibrated_page.py check "http://127.0.0.1:$port/" .build/browser/calibrated.png .build/browser/calibrate-found.json
kill -TERM $server
wait $server
trap - EXIT

# The same chart partly covered (a leaf, a finger): the page's Calibrate fits the patches it sees,
# as calibrate with no corners does on the same frames, and shows which it could not see.
python3 Tests/Browser/calibrated_page.py covered .build/browser
.build/release/eyedropper calibrate --source .build/browser/chart-covered.y4m --matrix bt601 --frames 2 \
  --reference .build/browser/reference.json --out .build/browser/profile-covered.json --format json \
  >.build/browser/calibrate-covered.json 2>.build/browser/calibrate-covered.log || { cat .build/browser/calibrate-covered.log >&2; exit 1; }
start_serve .build/release/eyedropper .build/browser/serve-covered.log --source .build/browser/chart-covered.y4m --matrix bt601 \
  --profile-dir .build/browser/profiles --reference .build/browser/reference.json
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/calibrated_page.py check-covered "http://127.0.0.1:$port/" .build/browser/covered.png .build/browser/calibrate-covered.json
kill -TERM $server
wait $server
trap - EXIT

# The light's drift: the drift run's files (rendered with the calibration venv, as
# Tests/Calibration/drift-tests.sh does), served looped at 2 frames a second.
source Tests/Calibration/environment.sh
eval "$("$python" -B Tests/Browser/drift_page.py render .build/browser/drift "$eyedropper")"
palette_options=()
if .build/release/eyedropper serve --help | grep -q -- --palette && [ -f Packaging/palettes/colorchecker-classic-24.json ]; then
  palette_options=(--palette Packaging/palettes/colorchecker-classic-24.json)
fi
start_serve .build/release/eyedropper .build/browser/serve-drift.log --source .build/browser/drift/drift-2fps.y4m \
  --matrix bt601 --range limited --profile .build/browser/drift/profile.json --white-reference "$tile" --max-drift 3 \
  --radius "$radius" "${points[@]/#/--at=}" "${palette_options[@]}"
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/drift_page.py check "http://127.0.0.1:$port/" .build/browser/drift-page.png "${palette_options[@]:1}"
kill -TERM $server
wait $server
trap - EXIT
start_serve .build/release/eyedropper .build/browser/serve-plain.log --source .build/browser/drift/drift-2fps.y4m \
  --matrix bt601 --range limited --profile .build/browser/drift/profile.json
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/drift_page.py plain "http://127.0.0.1:$port/"
kill -TERM $server
wait $server
trap - EXIT
if [ -f Packaging/palettes/css-named-colors.json ]; then
  python3 Tests/Browser/drift_page.py css Packaging/palettes/css-named-colors.json
else
  echo "SKIPPED: the CSS palette against Chromium (no Packaging/palettes/css-named-colors.json)"
fi
