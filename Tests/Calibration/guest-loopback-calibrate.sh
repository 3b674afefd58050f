#!/bin/sh
# Guest (Tests/VM/vivid-tests.sh with VM_LOOPBACK=1 and VM_DATA from `loopback.py render`):
# calibration's frames through a real V4L2 device. v4l2loopback makes two capture devices, fed by
# v4l2-feed as a webcam would deliver frames: /dev/video5 YUYV, /dev/video6 MJPEG. For the small
# chart in clutter, in each format, `eyedropper record` reads the scene from the device as
# calibrate would (libv4l2's conversion of YUYV, its decoding of MJPEG, the colorimetry the device
# reports), then the scene that checks it, each to /mnt/out as a .y4m. loopback-tests.sh runs
# `calibrate` with no corners and `sample --profile` on those recordings on the host, and
# `loopback.py check` judges them: a recording reads back to the same samples as the device, and
# the detection and the fit, the same on any source, take minutes under emulation and a second on
# the host. Here each recording must succeed with every frame asked for. Writes PASS/FAIL lines
# to $RESULTS.
# Budget: 120 s on the nominal guest (Tests/VM/guest-lib.sh): four recordings of 10 frames, about 10 s there.
. /mnt/guest-lib.sh
DATA=/mnt/data
OUT=/mnt/out
SIZE=1280x720
FRAMES=10
# libv4l2 decodes MJPEG with libjpeg-turbo, which picks its AVX2 code on this guest's CPU (qemu's
# -cpu max); under qemu 7.2's emulation of AVX2 that decoder never returns from its first frames
# (the same frames decode in 4 ms on the host's AVX2, and here with SSE2 or no SIMD). SSE2 it is:
# what is checked here is the device, libv4l2 and eyedropper, not qemu's AVX2.
export JSIMD_FORCESSE2=1

if [ ! -f /mods/v4l2loopback.ko ] || [ ! -f $DATA/scenes.json ]; then
    echo "FAIL loopback: no v4l2loopback module or no frames (run through Tests/Calibration/loopback-tests.sh)" >> "$RESULTS"
    exit 0
fi
if ! insmod /mods/v4l2loopback.ko devices=2 video_nr=5,6 exclusive_caps=1,1 card_label=Eyedropper-YUYV,Eyedropper-MJPG 2>/tmp/err; then
    echo "FAIL loopback: insmod v4l2loopback: $(cat /tmp/err)" >> "$RESULTS"
    exit 0
fi

feeder=""
feed() { # device, fourcc, scene, extension
    : > /tmp/feed.err
    v4l2-feed "$1" "$2" 1280 720 15 $DATA/frames/$3-[0-9].$4 2>>/tmp/feed.err &
    feeder=$!
    wait_until 30 grep -q 'feeding\|v4l2-feed:' /tmp/feed.err
}
stop() { kill $feeder 2>/dev/null; wait $feeder 2>/dev/null; feeder=""; }

# record FILE: 10 frames of what the device shows to $OUT/FILE, after 2 settling ones; says why not.
record() {
    eyedropper record --source $device --size $SIZE --skip 2 --frames $FRAMES --out $OUT/$1 > /dev/null 2> /tmp/record.err
    _rc=$?
    if [ $_rc -ne 0 ]; then echo "exit $_rc: $(tail -n 3 /tmp/record.err)"
    elif ! grep -q ": $FRAMES frames recorded" /tmp/record.err; then echo "not $FRAMES frames: $(tail -n 2 /tmp/record.err)"; fi
}
for run in YUYV:small MJPG:small; do
    format=${run%:*}; scene=${run#*:}
    if [ $format = YUYV ]; then device=/dev/video5; ext=yuyv; else device=/dev/video6; ext=jpg; fi
    check=$(awk -v s=$scene '$1 == s { print $2 }' $DATA/checks.txt)
    for shown in $scene $check; do
        name="$shown scene, $format"
        feed $device $format $shown $ext
        if ! grep -q feeding /tmp/feed.err; then
            fail "$name" "v4l2-feed did not start in $(scaled 30) s: $(cat /tmp/feed.err)"; stop; continue
        fi
        started=$(uptime_s)
        why=$(record device-$shown-$format.y4m)
        stop
        if [ -n "$why" ]; then fail "record through the device, $name" "$why"
        else pass "record through the device, $name: $FRAMES frames, $(head -n 1 $OUT/device-$shown-$format.y4m | grep -o 'XCOLORRANGE=[A-Z]* XEYEDROPPER_MATRIX=[A-Z0-9]*') ($(awk -v a=$started '{ printf "%.0f", $1 - a }' /proc/uptime) s)"; fi
    done
done
rmmod v4l2loopback 2>/dev/null
