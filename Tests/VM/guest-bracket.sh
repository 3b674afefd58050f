#!/bin/sh
# Guest: calibrate --bracket on a camera, stepping its own exposure control. vivid has no exposure
# control; its contrast scales the bars' R'G'B' about black, as an exposure time scales a linear
# sensor's values, so it stands in for one (--bracket-control contrast). The 24 patch windows sit
# on the six middle bars (a column a bar), at half saturation so that no channel is 0 (a patch
# with a channel at 0 says nothing of the curve, and is left out). Checked: each step
# set to the factor times the value the control had, read once two frames agree; the levels of
# every step on one curve; the control put back after, and also when the reading is interrupted
# halfway (exit 130, no profile written); a control an automatic one governs refused.
# Writes PASS/FAIL lines to $RESULTS.
# Budget: 70 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 16 s.
. /mnt/guest-lib.sh
DEV=/dev/video0
ctl() { v4l2-ctl -d $DEV -C "$1" 2>/dev/null | sed 's/^[^:]*: //' | cut -d' ' -f1; }
# Patch 1 (dark skin), 6 (bluish green), 24 (black), 19 (white): the centres of bars 2 and 7,
# below vivid's on-screen text; the 6 columns fall on the bars' centres, 80 pixels apart.
CHART="--source $DEV --size 640x480 --fps 25 --corner 0.1875,0.45 --corner 0.8125,0.45 --corner 0.8125,0.9 --corner 0.1875,0.9"
CAL="eyedropper calibrate $CHART --bracket-control contrast --model linear-3x3 --format json"

v4l2-ctl -d $DEV -c contrast=128,saturation=64
$CAL --frames 3 --bracket 1/4 --bracket 1/2 --bracket 5/4 --out /tmp/bracket.json > /tmp/bracket.out 2>/tmp/bracket.err
rc=$?
exposures=$(grep -o '"bracket":{[^}]*}' /tmp/bracket.out | grep -o '"exposures":\[[^]]*\]')
steps=$(grep -c '^exposure [234] of 4: contrast=\(32 (×0.25\|64 (×0.5\|160 (×1.25\) of 128), 3 frames after [0-9]* to settle$' /tmp/bracket.err)
if [ $rc -eq 0 ] && [ "$exposures" = '"exposures":[1,0.25,0.5,1.25]' ] && [ "$steps" -eq 3 ] \
    && grep -q '^put contrast back to 128$' /tmp/bracket.err && [ "$(ctl contrast)" = 128 ]; then
    pass "calibrate --bracket 1/4,1/2,5/4 --bracket-control contrast: stepped to 32, 64 and 160 of 128, each read once settled, put back to 128"
else fail "calibrate --bracket on vivid's contrast" "exit $rc, $exposures, $steps of 3 steps said, contrast now $(ctl contrast): $(tail -n 6 /tmp/bracket.err)"; fi

# The four steps' levels against one curve: a step read at another exposure than the one it is
# paired with (read before the control took, the factors in another order, or the factor asked
# rather than the value set) puts its levels where another step's say something else, and the
# residual goes from 0.3 % to 10 % or more. vivid applies a control at the next frame, and each
# step opens the stream anew, so the settling itself is not put to the test here.
residual=$(grep -o '"bracket":{[^}]*}' /tmp/bracket.out | grep -o '"residual":[0-9.e-]*' | cut -d: -f2)
if [ -n "$residual" ] && awk -v r="$residual" 'BEGIN { exit !(r < 0.01) }'; then
    pass "the levels of the four steps lie on one curve within $(awk -v r="$residual" 'BEGIN { printf "%.2f", 100 * r }') % (at most 1 %)"
else fail "the four steps on one curve" "residual '$residual' (at most 0.01): $(tail -n 3 /tmp/bracket.err)"; fi

# A control an automatic one governs (vivid's gain, under its autogain) is not stepped: a usage error
# naming what governs it and what to do, and no step read.
$CAL --frames 2 --bracket 1/2 --bracket-control gain --out /tmp/governed.json > /dev/null 2>/tmp/governed.err
rc=$?
if [ $rc -eq 64 ] && grep -q 'gain is inactive: .* governs it now; switch that off first' /tmp/governed.err \
    && ! grep -q '^exposure 2' /tmp/governed.err && [ ! -e /tmp/governed.json ]; then
    pass "calibrate --bracket-control gain under autogain: exit 64, $(grep -o 'gain is inactive: [^;]*' /tmp/governed.err)"
else fail "calibrate --bracket-control gain under autogain" "exit $rc: $(tail -n 3 /tmp/governed.err)"; fi

# Interrupted halfway: Ctrl-C during a step still puts the control back, and writes nothing.
rm -f /tmp/stopped.json
$CAL --frames 100 --bracket 1/4 --bracket 1/2 --out /tmp/stopped.json > /tmp/stopped.out 2>/tmp/stopped.err &
pid=$!
stepped() { [ "$(ctl contrast)" = 32 ]; }
if wait_until 60 stepped; then
    kill -INT $pid
    wait_until 20 ended $pid
fi
running $pid && kill -9 $pid
wait $pid; rc=$?
if [ $rc -eq 130 ] && [ ! -e /tmp/stopped.json ] && [ "$(ctl contrast)" = 128 ] && grep -q '^put contrast back to 128$' /tmp/stopped.err; then
    pass "calibrate --bracket interrupted at contrast=32: exit 130, contrast put back to 128, no profile written"
else fail "calibrate --bracket interrupted" "exit $rc, contrast $(ctl contrast), profile $(ls /tmp/stopped.json 2>&1): $(tail -n 4 /tmp/stopped.err)"; fi
