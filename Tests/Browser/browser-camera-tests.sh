#!/usr/bin/env bash
# The page of `eyedropper serve` on a real camera, in a real browser: boots the vivid VM
# (Tests/VM/vivid-tests.sh) with `serve` on its camera (Tests/VM/serve-for-browser.sh), forwards
# a host port to it, and runs headless Chromium on the host against the page's camera controls
# (Tests/Browser/click_sample.py --controls), opened with the token serve-for-browser.sh gives
# serve (it listens beyond loopback). Leaves the screenshot in .build/browser/camera.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps chromium python3 curl
mkdir -p .build/browser
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=.build/browser/vm.log
: >"$log"  # made here, not by the background job: the loop below may read it first
VM_HOSTFWD="tcp:127.0.0.1:$port-:8080" Tests/VM/vivid-tests.sh Tests/VM/serve-for-browser.sh > "$log" 2>&1 &
vm=$!
share=""
stop_vm() { [ -n "$share" ] && touch "$share/stop"; wait $vm 2>/dev/null; }
trap 'touch "${share:-/nonexistent}/stop" 2>/dev/null; kill $vm 2>/dev/null || true' EXIT
# The runner builds eyedropper for the guest first (minutes on a cold cache), then boots: waited
# for until serve answers or the VM ends (the runner's own limits end a VM that hangs).
while true; do
  [ -z "$share" ] && share=$(sed -n 's/^share: \([^ ]*\) .*/\1/p' "$log")
  if curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; then break; fi
  kill -0 $vm 2>/dev/null || { cat "$log"; echo "the VM ended before serve answered" >&2; exit 1; }
  sleep 0.5
done
curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" || { tail -n 20 "$log"; echo "serve in the VM never answered on port $port" >&2; exit 1; }
echo "serve on vivid answers on 127.0.0.1:$port (forwarded into the VM)"
set +e
token=vivid-browser-test-token-5f0c2a   # as Tests/VM/serve-for-browser.sh writes it
python3 Tests/Browser/click_sample.py --controls --token "$token" "http://127.0.0.1:$port/" .build/browser/camera.png
rc=$?
set -e
vm_rc=0; stop_vm || vm_rc=$?   # not ended by set -e: the results below are printed either way
trap - EXIT
grep -E '^(PASS|FAIL)|passed, .* failed' "$log" || true
[ $rc -eq 0 ] && [ $vm_rc -eq 0 ]
