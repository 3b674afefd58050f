#!/bin/sh
# Guest: camera controls against vivid's, which have every type (int, int64, bool, menu with
# holes, intmenu, bitmask, string, button, arrays, read-only, inactive, volatile): the listing
# agrees with v4l2-ctl's, values set reach the device and the picture, bad ones are refused
# before anything streams, --lock keeps what auto gain chose, and a reconnect sets them again.
# Writes PASS/FAIL lines to $RESULTS.
# Budget: 300 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 20 s.
. /mnt/guest-lib.sh
DEV=/dev/video0
ctl() { v4l2-ctl -d $DEV -C "$1" 2>/dev/null | sed 's/^[^:]*: //' | cut -d' ' -f1; }   # a menu's index, without its label

# The listing, against v4l2-ctl -L. Normalised where the two legitimately differ: spacing; no
# value for buttons, areas and volatile controls (v4l2-ctl prints a 0, or the value of that
# instant); bit masks (v4l2-ctl 1.22 prints them as negative decimals, checked in JSON below);
# the dynamic-array flag, which v4l2-ctl 1.22 does not name.
norm() {
    sed -e 's/^ *//' -e 's/  */ /g' -e 's/0x00000800/dynamic-array/' \
        -e '/(button)\|(area)\|(bitmask)\|volatile/s/ value=[^ ]*//' "$1"
}
v4l2-ctl -d $DEV -L > /tmp/theirs.txt 2>&1
eyedropper controls --device $DEV > /tmp/ours.txt 2>/tmp/ours.err
norm /tmp/theirs.txt > /tmp/theirs.norm; norm /tmp/ours.txt > /tmp/ours.norm
n=$(grep -c ' 0x[0-9a-f]\{8\} (' /tmp/ours.txt)
if [ "$n" -ge 50 ] && diff /tmp/theirs.norm /tmp/ours.norm > /tmp/listing.diff; then pass "listing: $n controls, as v4l2-ctl -L lists them"
else fail "listing against v4l2-ctl -L" "$n controls; $(head -c 600 /tmp/listing.diff) $(cat /tmp/ours.err)"; fi

# JSON: one object per control, fields in order; menus with their holes, no value for a button,
# bit masks unsigned, strings as strings.
J=$(eyedropper controls --device $DEV --format json)
objects=$(echo "$J" | grep -o '{"name":' | wc -l)
bad=""
for want in \
    '{"name":"brightness","id":9963776,"type":"int","min":0,"max":255,"step":1,"default":128,"value":128,"flags":["slider"]}' \
    '"type":"menu","min":1,"max":4,"step":1,"default":3,"value":3,"menu":{"1":"Menu Item 1","3":"Menu Item 3","4":"Menu Item 4"},"flags":[]}' \
    '"type":"intmenu","min":1,"max":8,"step":1,"default":4,"value":4,"menu":{"2":2,"3":3,"4":5,"5":8,"6":13,"7":21,"8":42},"flags":[]}' \
    '{"name":"button","id":10025216,"type":"button","min":0,"max":0,"step":0,"default":0,"flags":["write-only","execute-on-write"]}' \
    '"name":"bitmask","id":10025222,"type":"bitmask","min":0,"max":2151686160,"step":0,"default":2147491840,"value":2147491840,' \
    '"name":"string","id":10025221,"type":"string","min":2,"max":4,"step":1,"default":0,"value":"  ","flags":["has-payload"]}' \
    '"name":"gain","id":9963795,"type":"int","min":0,"max":255,"step":1,"default":100,"value":' \
    '"flags":["inactive","volatile"]}' \
    '"name":"read_only_integer_32_bits","id":10025228,"type":"int","min":0,"max":255,"step":1,"default":0,"value":0,"flags":["read-only"]}'; do
    echo "$J" | grep -qF "$want" || bad="$bad [missing $want]"
done
if [ "$objects" = "$n" ] && [ -z "$bad" ]; then pass "listing as JSON: $objects objects, types and values as the driver has them"
else fail "listing as JSON" "$objects objects (text: $n)$bad"; fi

# Bars at the middle of each of the 8 (below vivid's on-screen text), and whether all are grey.
bars() { eyedropper sample --source $DEV --size 640x480 --skip 2 --frames 1 "$@" \
    --at 0.0625,0.6 --at 0.1875,0.6 --at 0.3125,0.6 --at 0.4375,0.6 --at 0.5625,0.6 --at 0.6875,0.6 --at 0.8125,0.6 --at 0.9375,0.6; }
greys() { # the number of samples on the last line with r, g and b within 2 of each other
    tail -n 1 "$1" | grep -o '"r":[0-9]*,"g":[0-9]*,"b":[0-9]*' | sed 's/"[rgb]"://g' \
        | awk -F, '{ d1 = $1 - $2; d2 = $2 - $3; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2; if (d1 <= 2 && d2 <= 2) n++ } END { print n + 0 }'
}
bars > /tmp/colour.out 2>/tmp/colour.err
bars --control saturation=0 > /tmp/grey.out 2>/tmp/grey.err; rc=$?
c=$(greys /tmp/colour.out); g=$(greys /tmp/grey.out); s=$(ctl saturation)
if [ $rc -eq 0 ] && [ "$c" -le 2 ] && [ "$g" -eq 8 ] && [ "$s" = 0 ]; then
    pass "--control saturation=0: 8 of 8 bars grey (before: $c of 8), and the device keeps saturation 0"
else fail "--control saturation=0" "exit $rc, grey bars $g of 8 (before: $c), device saturation '$s': $(tail -n 2 /tmp/grey.err)"; fi
v4l2-ctl -d $DEV -c saturation=128
# stderr says what was opened and nothing else: no "libv4l2: error dequeuing buf" per frame.
if [ "$(grep -c . /tmp/grey.err)" -eq 2 ] && ! grep -q libv4l2 /tmp/grey.err; then pass "stderr of a camera run: 2 lines, no libv4l2 complaints"
else fail "stderr of a camera run" "$(head -c 400 /tmp/grey.err)"; fi

# Several at once, a menu by its label, a boolean by name, a former name refused as unknown
# only when the device lacks the control.
eyedropper sample --source $DEV --skip 0 --frames 1 --control 'brightness=100,menu=Menu Item 4' --control horizontal_flip=true > /dev/null 2>/tmp/multi.err
rc=$?; b=$(ctl brightness); m=$(ctl menu); h=$(ctl horizontal_flip)
if [ $rc -eq 0 ] && [ "$b" = 100 ] && [ "$m" = 4 ] && [ "$h" = 1 ]; then pass "--control a,b and repeated: brightness 100, menu by label 4, horizontal_flip=true 1"
else fail "--control a,b and repeated" "exit $rc, brightness '$b' menu '$m' flip '$h': $(tail -n 1 /tmp/multi.err)"; fi
v4l2-ctl -d $DEV -c brightness=128,menu=3,horizontal_flip=0

# Refusals: one line naming the control, exit 64, nothing on stdout.
refused() { # name, expected text, control arguments...
    name=$1; text=$2; shift 2
    eyedropper sample --source $DEV --frames 1 "$@" > /tmp/refused.out 2>/tmp/refused.err; rc=$?
    if [ $rc -eq 64 ] && [ ! -s /tmp/refused.out ] && [ "$(wc -l < /tmp/refused.err)" -eq 1 ] && grep -qF "$text" /tmp/refused.err; then
        pass "refused, exit 64, one line: $name ($(cat /tmp/refused.err))"
    else fail "refused: $name" "exit $rc, stdout $(wc -c < /tmp/refused.out) bytes, stderr: $(cat /tmp/refused.err)"; fi
}
refused "unknown control" "no control 'exposure_auto': \`eyedropper controls --device /dev/video0\` lists them" --control exposure_auto=1
refused "out of range" "brightness=300 is not a value it takes: give 0 to 255" --control brightness=300
refused "not a number" "contrast=high is not a value it takes: give a whole number from 0 to 255" --control contrast=high
refused "menu index it skips" "menu=2 is not a value it takes: give one of 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)" --control menu=2
refused "read-only" "read_only_integer_32_bits is read-only" --control read_only_integer_32_bits=1
refused "inactive" "gain is inactive: gain_automatic governs it now" --control gain=5
refused "string too long" "string=abcdef is not a value it takes: give text of 2 to 4 bytes" --control string=abcdef
refused "array control" "u8_pixel_array is a u8 control, which eyedropper does not set" --control u8_pixel_array=1
# The refusal comes before any value is set: brightness stays as it was.
if [ "$(ctl brightness)" = 128 ]; then pass "a refused setting sets nothing (brightness untouched)"
else fail "a refused setting sets nothing" "brightness is $(ctl brightness)"; fi
refused "a bad setting among good ones" "no control 'nosuch'" --control brightness=90 --control nosuch=1
if [ "$(ctl brightness)" = 128 ]; then pass "one bad setting among good ones: none is set"
else fail "one bad setting among good ones" "brightness is $(ctl brightness)"; fi

# Switching the automatic control off in the same run makes its manual one settable.
eyedropper sample --source $DEV --skip 0 --frames 1 --control gain=77 --control gain_automatic=0 > /dev/null 2>/tmp/order.err; rc=$?
if [ $rc -eq 0 ] && [ "$(ctl gain_automatic)" = 0 ] && [ "$(ctl gain)" = 77 ]; then pass "automatic controls applied first: gain=77 after gain_automatic=0"
else fail "automatic controls first" "exit $rc, gain_automatic $(ctl gain_automatic), gain $(ctl gain): $(cat /tmp/order.err)"; fi
v4l2-ctl -d $DEV -c gain_automatic=1

# --controls FILE as controls --save writes it: settable values only, set again on open.
eyedropper controls --device $DEV --save /tmp/saved.json 2>/tmp/save.err; rc=$?
v4l2-ctl -d $DEV -c brightness=10,contrast=20
eyedropper sample --source $DEV --skip 0 --frames 1 --controls /tmp/saved.json > /dev/null 2>/tmp/load.err; rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '"brightness":128' /tmp/saved.json && ! grep -q '"gain"\|"disconnect"\|"read_only' /tmp/saved.json \
    && [ "$(ctl brightness)" = 128 ] && [ "$(ctl contrast)" = 128 ]; then
    pass "controls --save, then --controls FILE: brightness and contrast back to 128 (no inactive, read-only or button in the file)"
else fail "--save and --controls" "exits $rc/$rc2, brightness $(ctl brightness), contrast $(ctl contrast): $(head -c 300 /tmp/saved.json) $(cat /tmp/load.err)"; fi

# --lock: auto gain settles during --skip, then is switched off with gain at the value it had.
eyedropper sample --source $DEV --fps 25 --skip 5 --frames 3 --lock > /tmp/lock.out 2>/tmp/lock.err; rc=$?
said=$(sed -n 's/.*locked at the values the camera settled on: .*gain=\([0-9]*\).*/\1/p' /tmp/lock.err)
if [ $rc -eq 0 ] && grep -q 'gain_automatic=0' /tmp/lock.err && [ -n "$said" ] && [ "$(ctl gain_automatic)" = 0 ] && [ "$(ctl gain)" = "$said" ]; then
    pass "--lock: gain_automatic off, gain kept at $said, as said on stderr"
else fail "--lock" "exit $rc, gain_automatic $(ctl gain_automatic), gain $(ctl gain), said '$said': $(cat /tmp/lock.err)"; fi
v4l2-ctl -d $DEV -c gain_automatic=1

# On every command that opens a camera.
eyedropper bench --source $DEV --skip 0 --frames 3 --control brightness=200 > /dev/null 2>/tmp/bench.err; b=$(ctl brightness)
eyedropper snapshot --source $DEV --skip 0 --control contrast=60 --out /tmp/c.jpg > /dev/null 2>/tmp/snap.err; c=$(ctl contrast)
if [ "$b" = 200 ] && [ "$c" = 60 ]; then pass "bench and snapshot set controls too (brightness 200, contrast 60)"
else fail "bench and snapshot --control" "brightness $b, contrast $c: $(tail -n 1 /tmp/bench.err) $(tail -n 1 /tmp/snap.err)"; fi
v4l2-ctl -d $DEV -c brightness=128,contrast=128

# Reconnect: another program changes the value, the camera is unplugged; when it is back the
# setting is made again.
eyedropper sample --source $DEV --size 640x480 --fps 25 --skip 0 --frames 75 --reconnect --control saturation=0 \
    --at 0.0625,0.6 --at 0.1875,0.6 --at 0.3125,0.6 --at 0.4375,0.6 --at 0.5625,0.6 --at 0.6875,0.6 --at 0.8125,0.6 --at 0.9375,0.6 \
    > /tmp/re.out 2>/tmp/re.err &
RE=$!
wait_until 30 has_frames /tmp/re.out 1
v4l2-ctl -d $DEV -c saturation=128
v4l2-ctl -d $DEV -c disconnect=1
if ! wait_until 60 ended $RE; then kill $RE; fail "controls after a reconnect" "still running $(scaled 60) s on: $(tail -n 2 /tmp/re.err)"
else
    wait $RE; rc=$?; g=$(greys /tmp/re.out); s=$(ctl saturation)
    if [ $rc -eq 0 ] && grep -q back /tmp/re.err && [ "$g" -eq 8 ] && [ "$s" = 0 ]; then
        pass "controls set again after a reconnect: saturation 0 on the device, last frame's 8 bars grey"
    else fail "controls after a reconnect" "exit $rc, saturation '$s', grey bars $g of 8: $(tail -n 3 /tmp/re.err)"; fi
fi
