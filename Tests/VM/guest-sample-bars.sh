#!/bin/sh
# Guest: eyedropper sample at the centres of vivid's 8 colour bars, for YU12 and NV12 at 640x480
# and 1280x720, under BT.601 limited (vivid's default), BT.709 limited and full range set on the
# driver, with --matrix auto --range auto: every bar within 2 levels of its colour, and the
# matrix and range eyedropper reports matching what the driver was set to.
# Writes PASS/FAIL lines to $RESULTS.
# Budget: 190 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 17 s.
. /mnt/guest-lib.sh
DEV=/dev/video0

# vivid's bars converted exactly: its 75% level is about 0.745 (its bar values are in the kernel's
# drivers/media/test-drivers/vivid/vivid-tpg-colors.c).
EXPECTED="190,190,190 188,190,0 0,190,189 0,189,0 188,0,189 188,0,0 0,0,188 0,0,0"
POINTS="--at 0.0625,0.6 --at 0.1875,0.6 --at 0.3125,0.6 --at 0.4375,0.6 --at 0.5625,0.6 --at 0.6875,0.6 --at 0.8125,0.6 --at 0.9375,0.6"

check() { # name, setting controls, expected matrix, expected range, size, fourcc
    name=$1; controls=$2; matrix=$3; range=$4; size=$5; fourcc=$6
    v4l2-ctl -d $DEV -c "$controls" >/dev/null 2>&1
    out=$(eyedropper sample --source $DEV --size "$size" --pixel-format "$fourcc" --skip 2 --frames 1 \
          --matrix auto --range auto $POINTS 2>/tmp/err)
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL $name: exit $rc: $(cat /tmp/err)" >> "$RESULTS"; return; fi
    case "$out" in
        *"\"matrix\":\"$matrix\",\"range\":\"$range\""*) ;;
        *) echo "FAIL $name: colorimetry: $out" >> "$RESULTS"; return ;;
    esac
    colours=$(echo "$out" | grep -o '"r":[0-9]*,"g":[0-9]*,"b":[0-9]*' | sed 's/"r"://; s/"g"://; s/"b"://')
    bad=""
    i=0
    for want in $EXPECTED; do
        i=$((i + 1))
        got=$(echo "$colours" | sed -n "${i}p")
        if [ -z "$got" ]; then bad="$bad bar$i:missing"; continue; fi
        set -- $(echo "$want $got" | tr ',' ' ')
        for channel in 1 2 3; do
            eval w=\$$channel; eval g=\$$((channel + 3))
            d=$((w - g)); [ $d -lt 0 ] && d=$((-d))
            if [ $d -gt 2 ]; then bad="$bad bar$i:$got(want $want)"; break; fi
        done
    done
    if [ -z "$bad" ]; then echo "PASS $name" >> "$RESULTS"; else echo "FAIL $name:$bad" >> "$RESULTS"; fi
}

for size in 640x480 1280x720; do
    for fourcc in YU12 NV12; do
        check "bars $fourcc $size bt601 limited" "y_cbcr_encoding=0,quantization=0" bt601 limited $size $fourcc
        check "bars $fourcc $size bt709 limited" "y_cbcr_encoding=2,quantization=0" bt709 limited $size $fourcc
        check "bars $fourcc $size bt601 full" "y_cbcr_encoding=0,quantization=1" bt601 full $size $fourcc
    done
done
v4l2-ctl -d $DEV -c y_cbcr_encoding=0,quantization=0 >/dev/null 2>&1
