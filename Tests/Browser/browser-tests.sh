#!/usr/bin/env bash
# The page of `eyedropper serve` in a real browser: headless Chromium loads it, clicks two bars of
# the live test pattern and checks the colour shown (Tests/Browser/click_sample.py). Needs a
# release build (Scripts/test makes one). Leaves the screenshot in .build/browser/page.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps chromium python3
mkdir -p .build/browser
log=.build/browser/serve.log
.build/release/eyedropper serve --source testpattern --listen 127.0.0.1:0 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's|.*on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "eyedropper serve did not start:" >&2; cat "$log" >&2; exit 1; }
python3 Tests/Browser/click_sample.py "http://127.0.0.1:$port/" .build/browser/page.png
kill -TERM $server
wait $server
trap - EXIT
