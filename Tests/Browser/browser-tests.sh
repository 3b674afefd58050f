#!/usr/bin/env bash
# The page of `eyedropper serve` in a real browser: headless Chromium loads it, clicks two bars of
# the live test pattern and checks the colour and statistics shown, the markers at the --at points
# and at the click, and the plot receiving samples (Tests/Browser/click_sample.py). Needs a release
# build (Scripts/test makes one). Leaves the screenshot in .build/browser/page.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps chromium python3
mkdir -p .build/browser
points=(0.0625,0.25 0.9375,0.75)
source Tests/Serve/start-serve.sh
start_serve .build/release/eyedropper .build/browser/serve.log --source testpattern "${points[@]/#/--at=}"
trap 'kill $server 2>/dev/null || true' EXIT
python3 Tests/Browser/click_sample.py "http://127.0.0.1:$port/" .build/browser/page.png "${points[@]}"
kill -TERM $server
wait $server
trap - EXIT
