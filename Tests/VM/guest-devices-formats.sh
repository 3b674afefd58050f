#!/bin/sh
# Guest: `eyedropper devices` and `eyedropper formats` against vivid, compared with what the
# driver itself reports through v4l2-ctl. Runs under busybox sh inside the VM (see vivid-tests.sh):
# vivid is loaded with its default node types, which make a capture node and output, metadata,
# VBI, radio, SDR and touch nodes. JSON is checked with grep/sed: the commands print one line
# with a fixed field order. Writes one PASS/FAIL line per check to $RESULTS.
# Budget: 150 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 13 s.
. /mnt/guest-lib.sh
one_line() { echo "$1" | tr '\n' ' ' | cut -c1-600; }   # actual output, short enough for a FAIL line

# vivid reloaded with the given parameters; insmod returns once the nodes exist (devtmpfs).
reload_vivid() {
    rmmod vivid 2>/dev/null
    insmod /mods/vivid.ko "$@" || { fail "insmod vivid $*" "insmod failed"; return 1; }
    wait_until 10 test -e /dev/video0
}

# The nodes whose own device capabilities include Video Capture, by the driver's word: the
# "Device Caps" block of `v4l2-ctl --info` (the "Capabilities" block above it is the whole
# instance's, capture and output alike).
capture_nodes() {
    for d in /dev/video*; do
        [ -e "$d" ] || continue
        v4l2-ctl -d "$d" --info 2>/dev/null | sed -n '/Device Caps/,/^[^[:space:]]/p' \
            | grep -q '^[[:space:]]*Video Capture$' && echo "$d"
    done | sort
}
non_capture_nodes() { ls /dev/video* 2>/dev/null | sort | grep -vxF "$(capture_nodes)"; }

# `devices` (JSON and text) lists exactly the capture nodes, each with driver vivid.
check_devices() { # name, expected number of capture nodes
    name=$1; want_count=$2
    expected=$(capture_nodes)
    n=$(echo "$expected" | grep -c .)
    if [ "$n" != "$want_count" ]; then
        fail "$name" "setup: v4l2-ctl finds $n capture nodes, expected $want_count: $(one_line "$(ls /dev/video*)")"; return
    fi
    out=$(eyedropper devices --format json 2>/tmp/err); rc=$?
    if [ $rc -ne 0 ]; then fail "$name json" "exit $rc: $(one_line "$out $(cat /tmp/err)")"
    elif [ "$(echo "$out" | wc -l)" != 1 ] || ! echo "$out" | grep -q '^\[.*\]$'; then fail "$name json" "not one JSON array line: $(one_line "$out")"
    else
        got=$(echo "$out" | grep -o '"path":"[^"]*"' | sed 's/"path":"//; s/"$//' | sort)
        entries=$(echo "$out" | grep -o '{[^}]*}' | grep -c .)
        vivid=$(echo "$out" | grep -o '{"path":"[^"]*","card":"[^"]*","driver":"vivid","bus":"platform:vivid-[0-9]*"}' | grep -c .)
        if [ "$got" != "$expected" ]; then fail "$name json" "paths $(one_line "$got"), capture nodes are $(one_line "$expected"): $(one_line "$out")"
        elif [ "$entries" != "$n" ] || [ "$vivid" != "$n" ]; then fail "$name json" "$entries entries, $vivid with driver vivid and a vivid bus, expected $n: $(one_line "$out")"
        else pass "$name json"; fi
    fi
    out=$(eyedropper devices 2>/tmp/err); rc=$?
    tab=$(printf '\t')
    if [ $rc -ne 0 ]; then fail "$name text" "exit $rc: $(one_line "$out $(cat /tmp/err)")"
    else
        got=$(echo "$out" | cut -f1 | sort)
        good=$(echo "$out" | grep -c "^/dev/video[0-9]*${tab}vivid${tab}vivid${tab}platform:vivid-[0-9]*$")
        if [ "$got" != "$expected" ] || [ "$good" != "$n" ]; then fail "$name text" "expected PATH<TAB>vivid<TAB>vivid<TAB>BUS for $(one_line "$expected"): $(one_line "$out")"
        else pass "$name text"; fi
    fi
}

# The JSON object of one format, cut out of the formats line.
format_entry() { echo "$J" | sed 's/{"fourcc":/\n&/g' | grep "^{\"fourcc\":\"$1\""; }
# v4l2-ctl's fps numbers ("(25.000 fps)") or eyedropper's ("fps":[25.0,...]) as %.3f, one per line, sorted.
norm() { awk '{ printf "%.3f\n", $1 }' | sort -n; }

# ---------------------------------------------------------------- 1. default node types
echo "nodes: $(one_line "$(ls /dev/video* /dev/vbi* /dev/radio* /dev/swradio* /dev/v4l-* 2>/dev/null)")"
v4l2-ctl --list-devices
others=$(non_capture_nodes)
if [ -z "$others" ]; then fail "devices: default vivid has non-capture video nodes" "only $(one_line "$(ls /dev/video*)")"
else pass "devices: default vivid has non-capture video nodes ($(one_line "$others"))"; fi
check_devices "devices: default vivid lists exactly its capture node" 1

# ---------------------------------------------------------------- 2. formats of the capture node
DEV=$(capture_nodes | head -1)
J=$(eyedropper formats --device "$DEV" --format json 2>/tmp/err); rc=$?
if [ $rc -ne 0 ] || [ "$(echo "$J" | wc -l)" != 1 ] || ! echo "$J" | grep -q "^{\"device\":\"$DEV\",\"formats\":\[{.*}\]}$"; then
    fail "formats $DEV: one JSON object line" "exit $rc: $(one_line "$J $(cat /tmp/err)")"
else
    pass "formats $DEV: one JSON object line"
fi
for f in YU12 YV12 NV12 NV21; do
    e=$(format_entry $f)
    if echo "$e" | grep -q "^{\"fourcc\":\"$f\",\"description\":\"[^\"]*\",\"support\":\"native\""; then pass "formats: $f native"
    else fail "formats: $f native" "$(one_line "$(echo "$e" | cut -c1-200)")"; fi
done
e=$(format_entry YUYV)
if echo "$e" | grep -q '^{"fourcc":"YUYV","description":"[^"]*","support":"converted"'; then pass "formats: YUYV converted"
else fail "formats: YUYV converted" "$(one_line "$(echo "$e" | cut -c1-200)")"; fi
natives=$(echo "$J" | grep -o '"fourcc":"[^"]*","description":"[^"]*","support":"native"' | sed 's/"fourcc":"//; s/".*//' | sort | tr '\n' ' ')
if [ "$natives" = "NV12 NV21 YU12 YV12 " ]; then pass "formats: only YU12 YV12 NV12 NV21 native, the rest converted"
else fail "formats: only YU12 YV12 NV12 NV21 native, the rest converted" "native: $natives"; fi
others=$(echo "$J" | grep -o '"support":"[^"]*"' | grep -cv '"support":"\(native\|converted\)"')
if [ "$others" = 0 ]; then pass "formats: support is native or converted"; else fail "formats: support is native or converted" "$others other values"; fi

# Same formats, in the same order, as the driver enumerates (vivid offers every format libv4l2
# could emulate itself, so libv4l2 adds none).
want=$(v4l2-ctl -d "$DEV" --list-formats | sed -n "s/^[[:space:]]*\[[0-9]*\]: '\([^']*\)'.*/\1/p")
got=$(echo "$J" | grep -o '"fourcc":"[^"]*"' | sed 's/"fourcc":"//; s/"$//')
if [ "$(echo "$got" | grep -c .)" = "$(echo "$want" | grep -c .)" ] && [ "$(echo "$got" | cut -c1-3)" = "$(echo "$want" | cut -c1-3)" ]; then
    pass "formats: same $(echo "$want" | grep -c .) formats as the driver, in its order"
else
    fail "formats: same formats as the driver, in its order" "driver: $(one_line "$want") eyedropper: $(one_line "$got")"
fi
# A FourCC is four printable ASCII characters; big-endian variants (bit 31 set) as v4l2-ctl
# writes them ("Y16 -BE"), not the raw flag byte.
bad=$(echo "$got" | LC_ALL=C grep -v '^[ -~][ -~][ -~][ -~]\(-BE\)\?$')
if [ -z "$bad" ]; then pass "formats: every fourcc printable"
else fail "formats: every fourcc printable" "$(one_line "$(echo "$bad" | od -c | head -4)") (driver says: $(one_line "$(echo "$want" | grep -- -BE)"))"; fi

# YU12's sizes and 640x480's frame rates, against the driver's own lists.
e=$(format_entry YU12)
want=$(v4l2-ctl -d "$DEV" --list-framesizes=YU12 | sed -n 's/.*Size: Discrete \([0-9]*\)x\([0-9]*\).*/{"width":\1,"height":\2,/p')
got=$(echo "$e" | grep -o '{"width":[0-9]*,"height":[0-9]*,')
if [ -n "$want" ] && [ "$got" = "$want" ]; then pass "formats: YU12 sizes as the driver's ($(echo "$got" | grep -c .) discrete)"
else fail "formats: YU12 sizes as the driver's" "driver: $(one_line "$want") eyedropper: $(one_line "$got")"; fi
fps=$(echo "$e" | grep -o '{"width":640,"height":480,"fps":\[[^]]*\]' | sed 's/.*\[//; s/\]//' | tr ',' '\n' | grep . | norm)
want=$(v4l2-ctl -d "$DEV" --list-frameintervals=width=640,height=480,pixelformat=YU12 | sed -n 's/.*(\([0-9.]*\) fps).*/\1/p' | norm)
if echo "$fps" | grep -qx '25.000' && [ "$fps" = "$want" ]; then pass "formats: YU12 640x480 at 25 fps, rates as the driver's"
else fail "formats: YU12 640x480 at 25 fps, rates as the driver's" "eyedropper: $(one_line "$fps") driver: $(one_line "$want") entry: $(echo "$e" | cut -c1-300)"; fi

out=$(eyedropper formats --device "$DEV" 2>&1); rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q '^YU12  native' && echo "$out" | grep -q '^    640x480  .*25.0 fps'; then pass "formats: text output"
else fail "formats: text output" "exit $rc: $(one_line "$(echo "$out" | head -12)")"; fi

# Stepwise sizes: vivid's TV input (1) offers a range, not a list.
if v4l2-ctl -d "$DEV" --set-input=1 >/dev/null 2>&1; then
    s=$(v4l2-ctl -d "$DEV" --list-framesizes=YU12 | sed -n 's/.*Stepwise \([0-9]*\)x\([0-9]*\) - \([0-9]*\)x\([0-9]*\) with step \([0-9]*\)\/\([0-9]*\).*/{"min_width":\1,"max_width":\3,"step_width":\5,"min_height":\2,"max_height":\4,"step_height":\6}/p')
    J=$(eyedropper formats --device "$DEV" --format json 2>&1)
    e=$(format_entry YU12)
    if [ -n "$s" ] && echo "$e" | grep -qF "\"sizes\":[$s]"; then pass "formats: stepwise sizes (TV input) $s"
    else fail "formats: stepwise sizes (TV input)" "driver: ${s:-no stepwise size} eyedropper: $(echo "$e" | cut -c1-300)"; fi
    v4l2-ctl -d "$DEV" --set-input=0 >/dev/null 2>&1
else
    fail "formats: stepwise sizes (TV input)" "v4l2-ctl --set-input=1 failed"
fi

# ---------------------------------------------------------------- 4. errors
out=$(eyedropper formats --device /dev/video99 --format json 2>/tmp/err); rc=$?
if [ $rc -eq 66 ] && [ -z "$out" ] && grep -q '/dev/video99' /tmp/err; then pass "formats: missing device exits 66 naming it"
else fail "formats: missing device exits 66 naming it" "exit $rc, stdout: $(one_line "$out") stderr: $(one_line "$(cat /tmp/err)")"; fi

OUTNODE=""
for d in $(non_capture_nodes); do
    v4l2-ctl -d "$d" --info | sed -n '/Device Caps/,/^[^[:space:]]/p' | grep -q '^[[:space:]]*Video Output$' && { OUTNODE=$d; break; }
done
if [ -z "$OUTNODE" ]; then fail "formats: output node refused" "no output-only node found"
else
    out=$(eyedropper formats --device "$OUTNODE" --format json 2>/tmp/err); rc=$?
    if [ $rc -ne 0 ] && [ -z "$out" ] && grep -qi "$OUTNODE.*not a .*capture device" /tmp/err; then pass "formats: output node $OUTNODE refused (exit $rc)"
    else fail "formats: output node $OUTNODE refused" "exit $rc, stdout: $(one_line "$out") stderr: $(one_line "$(cat /tmp/err)")"; fi
fi
# The metadata capture node is a capture node of another kind: refused as well.
for d in $(non_capture_nodes); do
    v4l2-ctl -d "$d" --info | sed -n '/Device Caps/,/^[^[:space:]]/p' | grep -q '^[[:space:]]*Metadata Capture$' || continue
    out=$(eyedropper formats --device "$d" 2>/tmp/err); rc=$?
    if [ $rc -ne 0 ] && grep -qi "not a .*capture device" /tmp/err; then pass "formats: metadata node $d refused (exit $rc)"
    else fail "formats: metadata node $d refused" "exit $rc: $(one_line "$out $(cat /tmp/err)")"; fi
    break
done

# ---------------------------------------------------------------- 3. two instances
reload_vivid n_devs=2 && check_devices "devices: n_devs=2 lists two capture devices" 2

# No device at all: an empty list on stdout, a line on stderr saying so, and formats without
# --device says so.
rmmod vivid
out=$(eyedropper devices --format json 2>/tmp/err); rc=$?
if [ $rc -eq 0 ] && [ "$out" = "[]" ] && grep -q "no video capture devices found" /tmp/err; then
  pass "devices: none loaded gives [] and says so on stderr"
else fail "devices: none loaded gives [] and says so on stderr" "exit $rc: $(one_line "$out") / $(one_line "$(cat /tmp/err)")"; fi
out=$(eyedropper formats --format json 2>/tmp/err); rc=$?
if [ $rc -eq 66 ] && [ -z "$out" ] && [ -s /tmp/err ]; then pass "formats: no device at all exits 66"
else fail "formats: no device at all exits 66" "exit $rc: $(one_line "$out $(cat /tmp/err)")"; fi
