#!/bin/sh
# Guest: vivid recorded and replayed. `sample --record FILE.y4m` prints its JSON lines live from
# the camera while it records; `sample --source FILE.y4m` must print the same lines, byte for
# byte, timestamps included: three times (YU12 640x480 BT.601, NV12 640x480 with vivid's
# brightness changed, YU12 1280x720 with BT.709 set on the driver). `record --out` alone: its
# header keeps the controls as the camera had them and each frame its driver timestamp.
# Writes PASS/FAIL lines to $RESULTS.
# Budget: 120 s on the nominal guest (Tests/VM/guest-lib.sh): four short captures and their replays, about 10 s there.
RESULTS=${RESULTS:-/mnt/out/results.txt}
DEV=/dev/video0
POINTS="--at 0.0625,0.6 --at 0.3125,0.6 --at 0.5625,0.6 --at 0.8125,0.6 --at 0.5,0.1 --radius 3"

round() { # n, fourcc, size, controls
    n=$1; fourcc=$2; size=$3; controls=$4
    v4l2-ctl -d $DEV -c "$controls" >/dev/null 2>&1
    if ! eyedropper sample --source $DEV --pixel-format "$fourcc" --size "$size" --skip 2 --frames 6 $POINTS \
        --record /tmp/rec$n.y4m > /tmp/live$n.txt 2>/tmp/err$n; then
        echo "FAIL replay $n ($fourcc $size): live sample exited $?: $(tail -1 /tmp/err$n)" >> "$RESULTS"; return
    fi
    if ! eyedropper sample --source /tmp/rec$n.y4m $POINTS > /tmp/replay$n.txt 2>/tmp/rerr$n; then
        echo "FAIL replay $n ($fourcc $size): replay exited $?: $(tail -1 /tmp/rerr$n)" >> "$RESULTS"; return
    fi
    lines=$(wc -l < /tmp/live$n.txt)
    # The driver's timestamps differ from frame to frame: equal lines are the same frames' lines.
    stamps=$(grep -o '"timestamp":[0-9.]*' /tmp/live$n.txt | sort -u | wc -l)
    if [ "$lines" != 6 ] || [ "$stamps" != 6 ]; then
        echo "FAIL replay $n ($fourcc $size): $lines lines live, $stamps distinct timestamps (want 6 and 6)" >> "$RESULTS"
    elif cmp -s /tmp/live$n.txt /tmp/replay$n.txt; then
        echo "PASS replay $n ($fourcc $size, $controls): 6 lines the same byte for byte" >> "$RESULTS"
    else
        echo "FAIL replay $n ($fourcc $size): live $(head -c 200 /tmp/live$n.txt) replayed $(head -c 200 /tmp/replay$n.txt)" >> "$RESULTS"
    fi
}

round 1 YU12 640x480 "y_cbcr_encoding=0,brightness=128"
round 2 NV12 640x480 "y_cbcr_encoding=0,brightness=140"
round 3 YU12 1280x720 "y_cbcr_encoding=2,brightness=128"

# record alone: the header names the matrix and the controls as set, each frame its time.
v4l2-ctl -d $DEV -c y_cbcr_encoding=2,brightness=150 >/dev/null 2>&1
if eyedropper record --source $DEV --size 640x480 --skip 2 --frames 4 --out /tmp/alone.y4m > /tmp/alone.out 2>/tmp/alone.err; then
    header=$(head -1 /tmp/alone.y4m)
    times=$(grep -ac 'FRAME XEYEDROPPER_TIME=' /tmp/alone.y4m)
    replayed=$(eyedropper sample --source /tmp/alone.y4m 2>/dev/null | grep -c '"matrix":"bt709"')
    case "$header" in
        *XEYEDROPPER_MATRIX=BT709*XEYEDROPPER_CONTROLS=*brightness:150*)
            if [ "$times" = 4 ] && [ "$replayed" = 4 ] && [ "$(cat /tmp/alone.out)" = /tmp/alone.y4m ]; then
                echo "PASS record: header '$header', 4 frames with their times, read back as bt709" >> "$RESULTS"
            else
                echo "FAIL record: $times frames with times, $replayed read back as bt709, stdout '$(cat /tmp/alone.out)'" >> "$RESULTS"
            fi ;;
        *) echo "FAIL record: header '$header'" >> "$RESULTS" ;;
    esac
else
    echo "FAIL record: exited $?: $(tail -1 /tmp/alone.err)" >> "$RESULTS"
fi
v4l2-ctl -d $DEV -c y_cbcr_encoding=0,brightness=128 >/dev/null 2>&1
