#!/bin/sh
# Guest, for Tests/Browser/browser-camera-tests.sh (not one of the guest-*.sh every run takes):
# eyedropper serve on vivid, which the host reaches through qemu's port forward (guest port
# 8080), until the host creates /mnt/stop. Writes PASS/FAIL lines to $RESULTS.
# Budget: 240 s on the nominal guest (Tests/VM/guest-lib.sh): the host's browser checks, which
# the guest's answers slow down as much as its speed says.
. /mnt/guest-lib.sh
# 0.0.0.0 (qemu forwards to the guest's eth0), so with a token, as on a network: the host's
# Tests/Browser/browser-camera-tests.sh knows this one, and the page is opened with it.
echo "vivid-browser-test-token-5f0c2a" > /tmp/token
eyedropper serve --source /dev/video0 --size 640x480 --fps 25 --skip 2 --listen 0.0.0.0:8080 --token-file /tmp/token \
    --at 0.3125,0.6 --at 0.6875,0.6 --radius 2 2>/mnt/out/serve-for-browser.err &
SERVER=$!
stopped_or_ended() { [ -e /mnt/stop ] || ended $SERVER; }
wait_until 230 stopped_or_ended
if ! kill -0 $SERVER 2>/dev/null; then fail "serve for the browser" "ended by itself: $(tail -n 3 /mnt/out/serve-for-browser.err)"; exit 0; fi
kill -TERM $SERVER; wait $SERVER; rc=$?
if [ -e /mnt/stop ] && [ $rc -eq 0 ]; then pass "serve for the browser: ran until the host was done, then ended cleanly"
else fail "serve for the browser" "stop file $([ -e /mnt/stop ] && echo present || echo missing), exit $rc"; fi
