#!/bin/sh
# Guest, for Tests/Browser/browser-camera-tests.sh (not one of the guest-*.sh every run takes):
# eyedropper serve on vivid, which the host reaches through qemu's port forward (guest port
# 8080), until the host creates /mnt/stop (at most 170 s). Writes PASS/FAIL lines to $RESULTS.
RESULTS=${RESULTS:-/mnt/out/results.txt}
pass() { echo "PASS $1" >> "$RESULTS"; }
fail() { echo "FAIL $1: $2" >> "$RESULTS"; }
# 0.0.0.0 (qemu forwards to the guest's eth0), so with a token, as on a network: the host's
# Tests/Browser/browser-camera-tests.sh knows this one, and the page is opened with it.
echo "vivid-browser-test-token-5f0c2a" > /tmp/token
eyedropper serve --source /dev/video0 --size 640x480 --fps 25 --skip 2 --listen 0.0.0.0:8080 --token-file /tmp/token \
    --at 0.3125,0.6 --at 0.6875,0.6 --radius 2 2>/mnt/out/serve-for-browser.err &
SERVER=$!
i=0; while [ ! -e /mnt/stop ] && [ $i -lt 1700 ] && kill -0 $SERVER 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if ! kill -0 $SERVER 2>/dev/null; then fail "serve for the browser" "ended by itself: $(tail -n 3 /mnt/out/serve-for-browser.err)"; exit 0; fi
kill -TERM $SERVER; wait $SERVER; rc=$?
if [ -e /mnt/stop ] && [ $rc -eq 0 ]; then pass "serve for the browser: ran until the host was done, then ended cleanly"
else fail "serve for the browser" "stop file $([ -e /mnt/stop ] && echo present || echo missing), exit $rc"; fi
