#!/bin/sh
# Guest (Tests/VM/vivid-tests.sh with VM_LOOPBACK=1 and VM_DATA from `loopback.py render`):
# calibration through a real V4L2 device. v4l2loopback makes two capture devices, fed by
# v4l2-feed as a webcam would deliver frames: /dev/video5 YUYV, /dev/video6 MJPEG. For the small
# chart in clutter, in each format, `eyedropper calibrate` with no corners reads the scene from the
# device and writes a profile; then `sample --profile` reads the scene that checks it, fed through
# the same device. The output goes to /mnt/out for `loopback.py check`, which judges the colours;
# here each command must succeed. (The plain and the unevenly lit charts are calibrated on the
# host from the same frames: what a device changes, libv4l2's conversion of YUYV and its decoding
# of MJPEG, the small chart shows; the fit, which is most of a calibration's time and takes
# minutes under emulation, is the same on any source.) Writes PASS/FAIL lines to $RESULTS.
# Budget: 400 s on the nominal guest (Tests/VM/guest-lib.sh): two calibrations with every
# model's leave-one-out, about 65 s each there, and two checks.
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

# Each calibrate (10 frames) takes about 65 s under qemu's emulation (Tests/VM/vm-speed.sh's nominal
# guest), most of it the fit's floating point, which TCG emulates in software: the device's
# formats on the hardest scene only (loopback.py's DEVICE_RUNS).
for run in YUYV:small MJPG:small; do
    format=${run%:*}; scene=${run#*:}
    if [ $format = YUYV ]; then device=/dev/video5; ext=yuyv; else device=/dev/video6; ext=jpg; fi
    {
        name="$scene chart, $format"
        feed $device $format $scene $ext
        if ! grep -q feeding /tmp/feed.err; then
            echo "FAIL $name: v4l2-feed did not start in $(scaled 30) s: $(cat /tmp/feed.err)" >> "$RESULTS"; stop; continue
        fi
        started=$(cut -d' ' -f1 /proc/uptime)
        eyedropper calibrate --source $device --size $SIZE --skip 2 --frames $FRAMES \
            --out $OUT/profile-$scene-$format.json --format json \
            > $OUT/calibrate-$scene-$format.json 2> $OUT/calibrate-$scene-$format.err
        rc=$?
        stop
        if [ $rc -ne 0 ]; then
            echo "FAIL $name: calibrate exited $rc: $(tail -n 3 $OUT/calibrate-$scene-$format.err)" >> "$RESULTS"; continue
        fi
        echo "PASS calibrate, no corners, $name: $(grep -o 'found the ColorChecker.*' $OUT/calibrate-$scene-$format.err) ($(awk -v a=$started '{ printf "%.0f", $1 - a }' /proc/uptime) s)" >> "$RESULTS"
        check=$(awk -v s=$scene '$1 == s { print $2 }' $DATA/checks.txt)
        feed $device $format $check $ext
        eyedropper sample --source $device --size $SIZE --skip 2 --frames $FRAMES --average $FRAMES --radius 20 \
            --profile $OUT/profile-$scene-$format.json --format json $(cat $DATA/points-$check.txt) \
            > $OUT/check-$scene-$format.json 2> $OUT/check-$scene-$format.err
        rc=$?
        stop
        if [ $rc -ne 0 ]; then
            echo "FAIL $name: sample --profile on $check exited $rc: $(tail -n 3 $OUT/check-$scene-$format.err)" >> "$RESULTS"
        else
            echo "PASS sample --profile, $name, on the $check scene: $(grep -o '"matrix":"[a-z0-9]*","range":"[a-z]*"' $OUT/check-$scene-$format.json | head -1)" >> "$RESULTS"
        fi
    }
done
rmmod v4l2loopback 2>/dev/null
